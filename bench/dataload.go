package bench

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"sparrow"
	"sparrow/sqlstore"
	"sparrow/sqlstore/bulk"
)

// User is an account the driver can act as.
type User struct {
	ID        sparrow.ID
	Token     string
	Followers int64
	Following int64
	Role      Role // RoleActive or RoleFresh
}

// Bar is a progress bar: Add counts progress, Done finishes it.
type Bar interface {
	Add(n int)
	SetTotal(n int64)
	Done()
}

// NewBar makes a progress bar of total units (≤ 0: unknown) described by desc.
type NewBar func(desc string, total int64) Bar

type noBar struct{}

func (noBar) Add(int)        {}
func (noBar) SetTotal(int64) {}
func (noBar) Done()          {}

func (nb NewBar) start(desc string, total int64) Bar {
	if nb == nil {
		return noBar{}
	}
	return nb(desc, total)
}

// LoadOptions tune LoadDataset.
type LoadOptions struct {
	Bulk bulk.Options // batch sizes, writers, Relaxed (Planned/Progress are set by the load)
	Bar  NewBar       // progress bars (nil: none)
}

// LoadReport says what LoadDataset did and how long each part took.
type LoadReport struct {
	Accounts                                bulk.AccountsLoad
	Follows                                 bulk.FollowsLoad
	Statuses                                bulk.StatusesLoad
	Tokens                                  int
	AccountsTime, FollowsTime, StatusesTime time.Duration
	TokensTime                              time.Duration
	Edges                                   int
}

// LoadDataset writes d into s through the bulk paths (accounts, follows with
// exact counters and hot flags at d.Config.HotAt, statuses step by step),
// then creates one OAuth app and a read/write/follow token for every account
// the suite drives (active and fresh), directly in the store: set-up never
// goes through the password grant, whose bcrypt would dominate. It returns
// those accounts with their tokens. Run it while no server uses s. It
// rewinds d's statuses first, so one data set loads identically into several
// backends (loads must not overlap).
func LoadDataset(ctx context.Context, s *sqlstore.Store, d *Dataset, o LoadOptions) ([]User, LoadReport, error) {
	d.Rewind()
	var rep LoadReport
	bo := o.Bulk
	bo.Now = d.Now
	bo.HotAt = d.Config.HotAt
	// phase runs one bulk load with its progress bar and returns its duration.
	// With total ≤ 0 the bar learns its total from the load's Planned.
	phase := func(desc string, total int64, fn func(bulk.Options) error) (time.Duration, error) {
		bar := o.Bar.start(desc, total)
		defer bar.Done()
		b := bo
		b.Planned = func(n int) {
			if total <= 0 {
				bar.SetTotal(int64(n))
			}
		}
		b.Progress = func(n int) { bar.Add(n) }
		t0 := time.Now()
		err := fn(b)
		return time.Since(t0), err
	}
	var err error
	if rep.AccountsTime, err = phase("accounts", 0, func(b bulk.Options) (err error) {
		rep.Accounts, err = bulk.LoadAccounts(ctx, s, d.IDs, b)
		return err
	}); err != nil {
		return nil, rep, fmt.Errorf("accounts: %w", err)
	}
	if rep.FollowsTime, err = phase("follows (following + followers rows)", 0, func(b bulk.Options) (err error) {
		rep.Follows, err = bulk.LoadFollows(ctx, s, d.Pairs, b)
		return err
	}); err != nil {
		return nil, rep, fmt.Errorf("follows: %w", err)
	}
	rep.Edges = rep.Follows.Edges
	if rep.StatusesTime, err = phase("statuses", int64(d.StatusCount()), func(b bulk.Options) error {
		for { // one load per time step: memory stays O(users)
			sts := d.NextStatuses()
			if sts == nil {
				return nil
			}
			r, lerr := bulk.LoadStatuses(ctx, s, sts, b)
			if lerr != nil {
				return lerr
			}
			rep.Statuses.Statuses += r.Statuses
			rep.Statuses.Inserted += r.Inserted
			rep.Statuses.Accounts = max(rep.Statuses.Accounts, r.Accounts)
			rep.Statuses.Write += r.Write
			rep.Statuses.Counters += r.Counters
		}
	}); err != nil {
		return nil, rep, fmt.Errorf("statuses: %w", err)
	}

	t0 := time.Now()
	users, err := createTokens(ctx, s, d, o.Bar)
	rep.TokensTime, rep.Tokens = time.Since(t0), len(users)
	return users, rep, err
}

// secret returns a 256-bit random secret, base64url-encoded (as the server's).
func secret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// createTokens makes one app and a token per driven account of d, 16 at a time.
func createTokens(ctx context.Context, s *sqlstore.Store, d *Dataset, nb NewBar) ([]User, error) {
	now := time.Now()
	ids := sparrow.NewIDGen(statusNode, nil)
	clientID := secret()
	app := &sparrow.App{ID: ids.Next(sparrow.KeyShard(clientID)), Name: "sparrow-bench", RedirectURIs: []string{"urn:ietf:wg:oauth:2.0:oob"},
		Scopes: sparrow.Scopes{sparrow.ScopeRead, sparrow.ScopeWrite, sparrow.ScopeFollow}, ClientID: clientID,
		SecretHash: sparrow.HashSecret(secret()), CreatedAt: now}
	if err := s.CreateApp(ctx, app); err != nil {
		return nil, fmt.Errorf("bench app: %w", err)
	}
	var users []User
	for i, r := range d.Roles {
		if r != RolePassive {
			users = append(users, User{ID: d.IDs[i], Token: sparrow.NewToken(d.IDs[i].Shard()), Followers: int64(d.Followers[i]), Following: int64(d.Following[i]), Role: r})
		}
	}
	bar := nb.start("tokens", int64(len(users)))
	defer bar.Done()
	work := make(chan int)
	errs := make(chan error, 16)
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				u := users[i]
				t := &sparrow.Token{Hash: sparrow.TokenHash(u.Token), AppID: app.ID, AccountID: u.ID, Scopes: app.Scopes, CreatedAt: now}
				if err := s.CreateToken(ctx, t); err != nil {
					errs <- fmt.Errorf("token of %d: %w", u.ID, err)
					return
				}
				bar.Add(1)
			}
		}()
	}
	var err error
feed:
	for i := range users {
		select {
		case work <- i:
		case err = <-errs:
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	return users, err
}

// WriteAccountsCSV writes users to path, one "id,token,followers,following,role"
// line each (role: active or fresh), for `sparrow bench run --target URL
// --accounts FILE`. Tools that want only "id,token" read the first two fields.
func WriteAccountsCSV(path string, users []User) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600) // tokens are credentials
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, u := range users {
		fmt.Fprintf(w, "%d,%s,%d,%d,%s\n", u.ID, u.Token, u.Followers, u.Following, u.Role)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadAccountsCSV reads an accounts file: lines "id,token" optionally
// followed by ",followers,following[,role]" (role active or fresh; default
// active). Blank lines and lines starting with '#' are skipped. Without
// counts, followers and following are -1: the suite asks the server.
func ReadAccountsCSV(r io.Reader) ([]User, error) {
	var out []User
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) < 2 {
			return nil, fmt.Errorf("line %d: want id,token[,followers,following[,role]]", n)
		}
		id, err := strconv.ParseInt(strings.TrimSpace(f[0]), 10, 64)
		if err != nil || id <= 0 {
			return nil, fmt.Errorf("line %d: %q is not an id", n, f[0])
		}
		u := User{ID: sparrow.ID(id), Token: strings.TrimSpace(f[1]), Followers: -1, Following: -1, Role: RoleActive}
		if len(f) >= 4 {
			if u.Followers, err = strconv.ParseInt(strings.TrimSpace(f[2]), 10, 64); err != nil {
				return nil, fmt.Errorf("line %d: followers %q", n, f[2])
			}
			if u.Following, err = strconv.ParseInt(strings.TrimSpace(f[3]), 10, 64); err != nil {
				return nil, fmt.Errorf("line %d: following %q", n, f[3])
			}
		}
		if len(f) >= 5 {
			switch strings.TrimSpace(f[4]) {
			case "active", "":
			case "fresh":
				u.Role = RoleFresh
			default:
				return nil, fmt.Errorf("line %d: role %q (want active or fresh)", n, f[4])
			}
		}
		out = append(out, u)
	}
	return out, sc.Err()
}
