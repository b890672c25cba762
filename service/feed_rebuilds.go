package service

import (
	"context"
	"sync"
)

// rebuildWorkers bounds the inbox rebuilds that run at once in a process.
// A rebuild reads up to --inbox-cap items by pull; more of them at once
// would only queue on the stores.
const rebuildWorkers = 16

// rebuilds runs the background inbox rebuilds of a Feed: at most
// rebuildWorkers at once, one per user at a time. A rebuild that finds no
// free worker is not started (its reader's page was answered by pull, and
// the reader's next page asks again). close stops new rebuilds, cancels
// those under way and waits for them. It is safe for concurrent use.
type rebuilds struct {
	ctx    context.Context // ends at Close; the parent of every rebuild
	cancel context.CancelFunc
	slots  chan struct{}
	mu     sync.Mutex
	users  map[any]bool // users with a rebuild under way
	closed bool
	wg     sync.WaitGroup
}

func newRebuilds() *rebuilds {
	ctx, cancel := context.WithCancel(context.Background())
	return &rebuilds{ctx: ctx, cancel: cancel, slots: make(chan struct{}, rebuildWorkers), users: map[any]bool{}}
}

// start runs fn for user in the background if a worker is free, no rebuild
// of user is under way and Close has not been called; fn gets a context
// that ends at Close. It reports whether fn was started.
func (r *rebuilds) start(user any, fn func(ctx context.Context)) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.users[user] {
		return false
	}
	select {
	case r.slots <- struct{}{}:
	default:
		return false // every worker is busy
	}
	r.users[user] = true
	r.wg.Go(func() {
		defer func() {
			r.mu.Lock()
			delete(r.users, user)
			r.mu.Unlock()
			<-r.slots
		}()
		fn(r.ctx)
	})
	return true
}

// wait waits for the rebuilds under way.
func (r *rebuilds) wait() { r.wg.Wait() }

// close stops new rebuilds, cancels those under way and waits for them.
func (r *rebuilds) close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
}
