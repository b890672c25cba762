package app_test

import (
	"testing"

	"sparrow/app"
)

func TestRedact(t *testing.T) {
	in := "0-127=mysql://root:s3cret@db1:3306/a,128-255=mysql://app:p%40ss@db2/b"
	want := "0-127=mysql://root:***@db1:3306/a,128-255=mysql://app:***@db2/b"
	if got := app.Redact(in); got != want {
		t.Fatalf("Redact = %q, want %q", got, want)
	}
	if got := app.Redact("redis://127.0.0.1:6379/0"); got != "redis://127.0.0.1:6379/0" {
		t.Fatalf("Redact changed a URL without a password: %q", got)
	}
}
