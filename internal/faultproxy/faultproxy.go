// Package faultproxy is a TCP proxy for tests that put a real service (a
// MariaDB store, Redis, NATS) behind it and then take it down or make it
// hang, as a crashed or wedged server would, without touching the service
// itself (other tests share it).
package faultproxy

import (
	"net"
	"sync"
)

// Proxy forwards the connections made to its address to a target. It is
// safe for concurrent use.
type Proxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	cond   *sync.Cond // signalled when the mode changes
	mode   mode
	conns  map[net.Conn]bool // both sides of every open connection
	closed bool
	wg     sync.WaitGroup
}

type mode int

const (
	up     mode = iota // forwarding
	down               // connections are closed, new ones closed at once: a dead server
	frozen             // nothing moves either way, new connections hang: a wedged server
)

// New listens on a random loopback port and forwards to target.
func New(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	p.cond = sync.NewCond(&p.mu)
	p.wg.Go(p.accept)
	return p, nil
}

// Addr returns the proxy's "host:port".
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Down closes every connection and closes new ones at once, until Up.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = down
	for c := range p.conns {
		c.Close()
	}
	p.cond.Broadcast()
}

// Freeze stops moving bytes on every connection, and leaves new ones
// hanging, until Up: the peers see no error, only silence.
func (p *Proxy) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = frozen
	p.cond.Broadcast()
}

// Up forwards again: frozen connections resume, new ones reach the target.
func (p *Proxy) Up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.mode = up
	p.cond.Broadcast()
}

// Close stops the proxy and closes every connection.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.cond.Broadcast()
	p.mu.Unlock()
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Go(func() { p.serve(c) })
	}
}

// track registers c, or reports false (and closes it) if the proxy is down
// or closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || p.mode == down {
		c.Close()
		return false
	}
	p.conns[c] = true
	return true
}

func (p *Proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		delete(p.conns, c)
		c.Close()
	}
}

// wait blocks while the proxy is frozen; it reports false once the proxy is
// down or closed.
func (p *Proxy) wait() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.mode == frozen && !p.closed {
		p.cond.Wait()
	}
	return p.mode == up && !p.closed
}

func (p *Proxy) serve(client net.Conn) {
	if !p.track(client) || !p.wait() {
		p.untrack(client)
		return
	}
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		p.untrack(client)
		return
	}
	if !p.track(server) {
		p.untrack(client)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { p.pipe(server, client) })
	wg.Go(func() { p.pipe(client, server) })
	wg.Wait()
	p.untrack(client, server)
}

// pipe copies src to dst, holding what it read while the proxy is frozen.
func (p *Proxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if !p.wait() {
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return // EOF or a closed connection: closing both ends tells the other side
		}
	}
}
