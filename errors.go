package sparrow

import (
	"errors"
	"fmt"
	"time"
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

// Error is the one error type of the domain. Msg is safe to show to clients,
// except for the server-side kinds (EUnavailable, EInternal), whose messages
// are for logs: clients get a fixed one. Err, if set, is the cause and is
// never shown to clients.
type Error struct {
	Kind Kind
	Msg  string
	Err  error
	// Retry, for EUnavailable and ERateLimited, is when to try again (the
	// HTTP layer's Retry-After); 0 lets the HTTP layer choose.
	Retry time.Duration
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

// Unavailable returns an EUnavailable error that keeps err as its cause and
// says when to try again.
func Unavailable(err error, retry time.Duration, format string, args ...any) *Error {
	return &Error{Kind: EUnavailable, Msg: fmt.Sprintf(format, args...), Err: err, Retry: retry}
}

// RetryAfter returns the Retry of the first *Error in err's chain that has
// one, or 0.
func RetryAfter(err error) time.Duration {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return 0
		}
		if e.Retry > 0 {
			return e.Retry
		}
		err = e.Err
	}
	return 0
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

// Messages of the server-side kinds, the same whatever happened.
const (
	MsgInternal    = "Internal server error"
	MsgUnavailable = "Service temporarily unavailable"
)

// ErrorMessage returns the client-safe message of err. Errors that are not
// *Error, and the server-side kinds, yield a fixed message so that internal
// details (a store's name, a key, a driver's words) never reach clients.
func ErrorMessage(err error) string {
	var e *Error
	if !errors.As(err, &e) || e.Kind == EInternal {
		return MsgInternal
	}
	if e.Kind == EUnavailable {
		return MsgUnavailable
	}
	return e.Msg
}

// IsKind reports whether err has the given kind.
func IsKind(err error, kind Kind) bool { return ErrorKind(err) == kind }
