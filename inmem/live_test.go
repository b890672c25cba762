package inmem_test

import (
	"testing"

	"sparrow"
	"sparrow/inmem"
	"sparrow/internal/livetest"
)

func TestLiveFeed(t *testing.T) {
	livetest.Run(t, func(t *testing.T) (sparrow.LiveFeed, func(sparrow.Event)) {
		f := inmem.NewLiveFeed()
		return f, f.PublishStatus
	})
}
