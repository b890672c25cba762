// Package bench drives load against a Mastodon-API server and measures it:
// closed-loop with N clients, or open-loop at a fixed rate, with latencies in
// an HdrHistogram corrected for coordinated omission. `sparrow bench` builds
// its scenarios from it.
package bench
