package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"sparrow/app"
	"sparrow/sqlstore"
)

// sparrowRun runs one sparrow command line in process and returns its
// standard output.
func sparrowRun(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := &cobra.Command{Use: "sparrow", SilenceUsage: true, SilenceErrors: true}
	root.AddCommand(genCmd(), importCmd(), adminCmd())
	var out, errw bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errw)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

func sparrowMustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, err := sparrowRun(t, args...)
	if err != nil {
		t.Fatalf("sparrow %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// TestGenImportCheck: gen → import → check-relations on SQLite, then a
// corruption that check finds (exit 1) and --repair fixes.
func TestGenImportCheck(t *testing.T) {
	dir := t.TempDir()
	edges, accounts, data := filepath.Join(dir, "e.csv"), filepath.Join(dir, "a.csv"), filepath.Join(dir, "data")
	gen := []string{"gen", "follows", "--users", "800", "--mean-following", "12", "--zipf", "1.2", "--max-followers", "150", "--seed", "9"}
	sparrowMustRun(t, append(gen, "--out", edges, "--accounts-out", accounts)...)
	sparrowMustRun(t, append(gen, "--out", edges+".2")...)
	a, _ := os.ReadFile(edges)
	b, _ := os.ReadFile(edges + ".2")
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("gen is not deterministic (%d vs %d bytes)", len(a), len(b))
	}
	ids, _ := os.ReadFile(accounts)
	if n := bytes.Count(ids, []byte("\n")); n != 800 {
		t.Fatalf("%d account ids, want 800", n)
	}

	out := sparrowMustRun(t, "import", "follows", edges, "--accounts", accounts, "--data", data, "--quiet", "--batch", "300")
	for _, want := range []string{"accounts: 800 created", "fresh tables", "edges/s", "bytes/edge"} {
		if !strings.Contains(out, want) {
			t.Errorf("import output lacks %q:\n%s", want, out)
		}
	}
	if out = sparrowMustRun(t, "admin", "check-relations", "--data", data); !strings.Contains(out, "consistent: no findings") {
		t.Fatalf("check after import:\n%s", out)
	}
	// importing again merges and stays consistent
	out = sparrowMustRun(t, "import", "follows", edges, "--data", data, "--quiet")
	if !strings.Contains(out, "merged") || !strings.Contains(out, "(0 new following rows)") {
		t.Fatalf("second import:\n%s", out)
	}

	// lose a followers row
	shards, err := sqlstore.OpenShards(context.Background(), app.DefaultShards(data), app.Openers)
	if err != nil {
		t.Fatal(err)
	}
	db := shards.DBs()[0]
	if _, derr := db.W.Exec("DELETE FROM followers WHERE (to_id, from_id) = (SELECT to_id, from_id FROM followers LIMIT 1)"); derr != nil {
		t.Fatal(derr)
	}
	shards.Close()

	out, err = sparrowRun(t, "admin", "check-relations", "--data", data)
	var ef errFindings
	if !errors.As(err, &ef) || ef != 2 || !strings.Contains(out, "missing-follower") || !strings.Contains(out, "counter-mismatch") {
		t.Fatalf("check of a corrupted store: err %v\n%s", err, out)
	}
	// repair restores the row; counters, checked after, are right again
	if out = sparrowMustRun(t, "admin", "check-relations", "--data", data, "--repair"); !strings.Contains(out, "repaired all 1 findings") {
		t.Fatalf("repair:\n%s", out)
	}
	sparrowMustRun(t, "admin", "check-relations", "--data", data)
}

func TestImportBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("1,2\nnonsense\n"), 0o644)
	_, err := sparrowRun(t, "import", "follows", bad, "--data", filepath.Join(dir, "data"), "--quiet")
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want one naming line 2", err)
	}
	if _, err := sparrowRun(t, "gen", "follows", "--users", "1", "--out", filepath.Join(dir, "x")); err == nil {
		t.Fatal("gen accepted 1 user")
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Fatal("a failed gen left a file behind")
	}
}
