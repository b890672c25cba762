package nats

import "github.com/nats-io/nats.go/jetstream"

// JetStreamOf returns the JetStream context b uses, for the tests' looks at
// the server's state (stream and consumer info).
func JetStreamOf(b *Bus) jetstream.JetStream { return b.js }
