package redis

import (
	"errors"

	goredis "github.com/redis/go-redis/v9"
	"sparrow"
)

// wrap translates a go-redis error into a *sparrow.Error; nil stays nil.
// Replies by which the server says it cannot serve now are EUnavailable,
// like network failures, timeouts, cancelled contexts and a closed client;
// any other error reply (WRONGTYPE, a script error...) is EInternal.
func wrap(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return sparrow.WrapError(kindOf(err), err, "redis: "+format, args...)
}

func kindOf(err error) sparrow.Kind {
	var reply goredis.Error
	if !errors.As(err, &reply) {
		return sparrow.EUnavailable
	}
	switch {
	case goredis.IsLoadingError(err), goredis.IsReadOnlyError(err),
		goredis.IsClusterDownError(err), goredis.IsTryAgainError(err),
		goredis.IsMasterDownError(err), goredis.IsMaxClientsError(err),
		goredis.IsOOMError(err), goredis.IsAuthError(err),
		goredis.HasErrorPrefix(err, "BUSY"):
		return sparrow.EUnavailable
	}
	return sparrow.EInternal
}
