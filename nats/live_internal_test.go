package nats

import "testing"

func TestParseAnnouncement(t *testing.T) {
	for _, c := range []struct {
		subject, data string
		ok            bool
	}{
		{"sparrow.stream.notification.42", "7", true},
		{"sparrow.stream.notification.x", "7", false},
		{"sparrow.stream.notification.42", "", false},
		{"sparrow.stream.notification.-1", "7", false},
	} {
		r, id, ok := parseAnnouncement(c.subject, []byte(c.data))
		if ok != c.ok || ok && (r != 42 || id != 7) {
			t.Errorf("parseAnnouncement(%q, %q) = %d, %d, %v", c.subject, c.data, r, id, ok)
		}
	}
}
