package faultproxy

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// echo serves lines back until the test ends.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					c.Write([]byte(line))
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// roundTrip sends a line through c and reports whether it came back within d.
func roundTrip(c net.Conn, d time.Duration) bool {
	c.SetDeadline(time.Now().Add(d))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "ping\n"
}

func TestUpFreezeDown(t *testing.T) {
	p, err := New(echo(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !roundTrip(c, 2*time.Second) {
		t.Fatal("no echo through the proxy")
	}
	p.Freeze()
	if roundTrip(c, 200*time.Millisecond) {
		t.Fatal("an echo while frozen")
	}
	c2, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	c2.SetDeadline(time.Now().Add(2 * time.Second))
	c2.Write([]byte("held\n"))
	time.Sleep(100 * time.Millisecond)
	p.Up()
	if line, rerr := bufio.NewReader(c2).ReadString('\n'); rerr != nil || line != "held\n" {
		t.Fatalf("a connection made while frozen: %q %v", line, rerr)
	}
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if line, rerr := bufio.NewReader(c).ReadString('\n'); rerr != nil || line != "ping\n" {
		t.Fatalf("the line held while frozen: %q %v", line, rerr)
	}
	p.Down()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, rerr := bufio.NewReader(c).ReadString('\n'); rerr == nil {
		t.Fatal("a connection survived Down")
	}
	c3, err := net.Dial("tcp", p.Addr())
	if err == nil {
		if roundTrip(c3, time.Second) {
			t.Fatal("an echo while down")
		}
		c3.Close()
	}
	p.Up()
	c4, err := net.Dial("tcp", p.Addr())
	if err != nil || !roundTrip(c4, 2*time.Second) {
		t.Fatalf("no echo after Up: %v", err)
	}
	c4.Close()
}
