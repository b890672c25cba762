// Package relay moves events from the transactional outboxes to the bus.
//
// Every write in Sparrow commits its rows and the sparrow.Event describing
// them into its shard's outbox in one local transaction. A Relay reads each
// physical store's outbox (sparrow.Outbox), publishes the pending events to
// the bus (sparrow.Publisher) and then marks them published. One relay per
// store publishes at a time: the one holding the store's "relay" lease; the
// relays of the other processes stand by and take over when the lease expires.
//
// Delivery is at least once. A relay that stops between publishing a batch
// and marking it published leaves the batch pending, and the next relay
// publishes it again; the bus drops the duplicates by event id within its
// dedupe window, and consumers are idempotent anyway. An event is never
// dropped: on any error the relay backs off and retries.
package relay
