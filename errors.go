package sparrow

import (
	"errors"
	"fmt"
)

// Kind classifies an error. The HTTP layer maps kinds to status codes in one
// place; storage packages translate driver errors into kinds at their boundary.
type Kind string

// Error kinds. Every error that crosses a package boundary carries one of them.
const (
	EBadRequest   Kind = "bad_request"  // malformed request, missing parameter (400)
	EInvalid      Kind = "invalid"      // well-formed but fails validation (422)
	EUnauthorized Kind = "unauthorized" // no or bad credentials (401)
	EForbidden    Kind = "forbidden"    // authenticated but not allowed (403)
	ENotFound     Kind = "not_found"    // absent, or present but not visible (404)
	EConflict     Kind = "conflict"     // unique constraint, state conflict (409)
	ETooLarge     Kind = "too_large"    // a request over a size or count limit (413)
	ERateLimited  Kind = "rate_limited" // too many attempts (429)
	EUnavailable  Kind = "unavailable"  // a dependency is down (503)
	EInternal     Kind = "internal"     // a bug or an unexpected failure (500)
)

// Error is the one error type of the domain. Msg is safe to show to clients;
// Err, if set, is the cause and is never shown to clients.
type Error struct {
	Kind Kind
	Msg  string
	Err  error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Kind, e.Msg, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Kind, e.Msg)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of the given kind with a client-safe message.
func Errorf(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// WrapError returns an *Error of the given kind that keeps err as its hidden cause.
func WrapError(kind Kind, err error, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...), Err: err}
}

// ErrorKind returns the kind of the first *Error in err's chain, EInternal for
// any other non-nil error, and "" for nil.
func ErrorKind(err error) Kind {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return EInternal
}

// ErrorMessage returns the client-safe message of err. Errors that are not
// *Error, and internal errors, yield a generic message so that internal
// details never reach clients.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Kind != EInternal {
		return e.Msg
	}
	return "Internal server error"
}

// IsKind reports whether err has the given kind.
func IsKind(err error, kind Kind) bool { return ErrorKind(err) == kind }
