// Package stream is Sparrow's live delivery for the Mastodon streaming API:
// a per-process Hub holding the streams that clients connected to this
// process are subscribed to, fed from the bus.
//
// Every process sees every status event and every notification announcement
// (see Listen), and delivers each to its own clients only; nothing about
// connections is shared between processes, so streaming works the same with
// one embedded process and with many processes behind a load balancer.
//
//   - Statuses: for each status.created, status.edited or status.deleted
//     event, the hub asks its Policy, for each signed-in account with a home
//     stream here, whether the status belongs in that account's home (the
//     same rule as the home timeline), and for each viewer of a public stream
//     whether it belongs on the public timeline; the answer is hydrated for
//     that viewer.
//   - Notifications: the store that records notifications announces their
//     ids on core NATS (Announcer); the hub of the process where the
//     recipient is connected loads the notification through the notification
//     service (the same filtering as the REST API) and delivers it.
//
// Delivery is best effort, as in Mastodon: a client that connects late or
// reconnects reads what it missed from the REST timelines. Producers never
// wait for clients: each connection has a bounded buffer, and a connection
// whose buffer is full is dropped (Conn.Err is ErrSlowClient), so that the
// client reconnects rather than silently missing events.
package stream
