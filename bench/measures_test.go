package bench

import "testing"

func TestBuckets(t *testing.T) {
	for n, want := range map[int64]int{0: -1, 9: -1, 10: 0, 94: 0, 95: 1, 100: 1, 9499: 2, 10000: 3, 99_999: 4, 250000: 4} {
		if got := followersBucket(n); got != want {
			t.Errorf("followersBucket(%d) = %d, want %d", n, got, want)
		}
	}
	// an author followed by all of 100k users, or a probe capped at users-1
	// (999), counts for the round bucket
	for n, want := range map[int64]int{5: -1, 10: 0, 46: 0, 48: 1, 999: 4, 1000: 4, 4800: 6, 100000: 6} {
		if got := followingBucket(n); got != want {
			t.Errorf("followingBucket(%d) = %d, want %d", n, got, want)
		}
	}
	for b, want := range map[int]string{10: "10", 100: "100", 1000: "1k", 10000: "10k", 1500: "1500"} {
		if got := bucketLabel(b); got != want {
			t.Errorf("bucketLabel(%d) = %q, want %q", b, got, want)
		}
	}
}
