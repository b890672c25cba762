package bench

import (
	"bytes"
	"os"
	"slices"
	"testing"
	"time"

	"sparrow"
)

func testDatasetConfig() DatasetConfig {
	return DatasetConfig{Users: 300, MeanFollowing: 12, Zipf: 1.1, MaxFollowers: 120, StatusesPerUser: 3, Days: 2, HotAt: 60,
		ProbesPerBucket: 2, FreshUsers: 4, FreshFollowing: 150, AuthorsPerBucket: 3, Seed: 9}
}

func TestGenerateDataset(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	c := testDatasetConfig()
	d, err := GenerateDataset(c, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	// probes: 10, 50, 100 (2 each), then 299 for the 500 bucket: 8 probes, 4 fresh
	if want := c.Users + 8 + 4; len(d.IDs) != want {
		t.Fatalf("%d accounts, want %d", len(d.IDs), want)
	}
	index := map[sparrow.ID]int{}
	for i, id := range d.IDs {
		if _, dup := index[id]; dup {
			t.Fatalf("duplicate account id %d", id)
		}
		index[id] = i
	}
	followers, following := make([]int32, len(d.IDs)), make([]int32, len(d.IDs))
	seen := map[[2]sparrow.ID]bool{}
	for _, p := range d.Pairs {
		if p.From == p.To || seen[[2]sparrow.ID{p.From, p.To}] {
			t.Fatalf("self or duplicate follow %v", p)
		}
		seen[[2]sparrow.ID{p.From, p.To}] = true
		following[index[p.From]]++
		followers[index[p.To]]++
	}
	if !slices.Equal(followers, d.Followers) || !slices.Equal(following, d.Following) {
		t.Fatal("Followers/Following do not match the pairs")
	}
	var probes []int32
	fresh := 0
	for i := c.Users; i < len(d.IDs); i++ {
		switch d.Roles[i] {
		case RoleActive:
			probes = append(probes, d.Following[i])
		case RoleFresh:
			fresh++
			if d.Following[i] != int32(c.FreshFollowing) {
				t.Errorf("fresh user follows %d, want %d", d.Following[i], c.FreshFollowing)
			}
		default:
			t.Errorf("extra account %d is passive", i)
		}
		if d.Followers[i] != 0 {
			t.Errorf("extra account %d has followers", i)
		}
	}
	if !slices.Equal(probes, []int32{10, 10, 50, 50, 100, 100, 299, 299}) || fresh != 4 {
		t.Errorf("probes follow %v, %d fresh; want 10,10,50,50,100,100,299,299 and 4", probes, fresh)
	}
	for i := 0; i < c.Users; i++ {
		if d.Roles[i] != RoleActive {
			t.Fatalf("user %d not active with ActiveUsers 0", i)
		}
	}

	again, _ := GenerateDataset(c, now, nil)
	if !slices.Equal(again.Pairs, d.Pairs) || !slices.Equal(again.IDs, d.IDs) {
		t.Error("the same configuration gave another data set")
	}

	c.ActiveUsers = 50
	part, _ := GenerateDataset(c, now, nil)
	active := 0
	for i := 0; i < c.Users; i++ {
		if part.Roles[i] == RoleActive {
			active++
		}
	}
	if active < 50 || active > 50+len(FollowersBuckets)*c.AuthorsPerBucket {
		t.Errorf("%d active users of %d, want 50 plus at most the bucket authors", active, c.Users)
	}
}

func TestDatasetStatuses(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	c := testDatasetConfig()
	d, err := GenerateDataset(c, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	span := time.Duration(c.Days * float64(24*time.Hour))
	var all []sparrow.ID
	perUser := map[sparrow.ID]int{}
	var last time.Time
	for step := 0; ; step++ {
		sts := d.NextStatuses()
		if sts == nil {
			if step != c.StatusesPerUser {
				t.Fatalf("%d steps, want %d", step, c.StatusesPerUser)
			}
			break
		}
		if len(sts) != c.Users {
			t.Fatalf("step %d: %d statuses, want %d", step, len(sts), c.Users)
		}
		for _, st := range sts {
			if st.ID.Shard() != st.AccountID.Shard() {
				t.Fatalf("status %d does not carry the gene of %d", st.ID, st.AccountID)
			}
			if !st.ID.Time().Equal(st.CreatedAt) {
				t.Fatalf("status %d: id time %v, created %v", st.ID, st.ID.Time(), st.CreatedAt)
			}
			if st.CreatedAt.Before(last) || st.CreatedAt.Before(now.Add(-span-time.Minute)) || !st.CreatedAt.Before(now) {
				t.Fatalf("status %d at %v: out of order or outside the span", st.ID, st.CreatedAt)
			}
			if st.Text == "" || st.Visibility != "" {
				t.Fatalf("status %+v: want text and the default (public) visibility", st)
			}
			last = st.CreatedAt
			all = append(all, st.ID)
			perUser[st.AccountID]++
		}
	}
	for i := 0; i < c.Users; i++ {
		if perUser[d.IDs[i]] != c.StatusesPerUser {
			t.Fatalf("user %d posted %d statuses, want %d", i, perUser[d.IDs[i]], c.StatusesPerUser)
		}
	}
	sorted := slices.Clone(all)
	slices.Sort(sorted)
	if len(slices.Compact(sorted)) != len(all) {
		t.Fatal("duplicate status ids")
	}
	d.Rewind()
	var replay []sparrow.ID
	for sts := d.NextStatuses(); sts != nil; sts = d.NextStatuses() {
		for _, st := range sts {
			replay = append(replay, st.ID)
		}
	}
	if !slices.Equal(replay, all) {
		t.Error("Rewind did not give the same statuses")
	}
}

func TestAccountsCSVRoundTrip(t *testing.T) {
	users := []User{{ID: 11, Token: "a", Followers: 3, Following: 4, Role: RoleActive}, {ID: 12, Token: "b", Followers: 0, Following: 9, Role: RoleFresh}}
	path := t.TempDir() + "/accounts.csv"
	if err := WriteAccountsCSV(path, users); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.WriteString("# comment\n\n")
	b, _ := os.ReadFile(path)
	buf.Write(b)
	buf.WriteString("13,c\n")
	got, err := ReadAccountsCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want := append(users, User{ID: 13, Token: "c", Followers: -1, Following: -1, Role: RoleActive})
	if !slices.Equal(got, want) {
		t.Errorf("read %+v, want %+v", got, want)
	}
	for _, bad := range []string{"x,tok\n", "5\n", "5,t,1,2,admin\n", "5,t,a,2\n"} {
		if _, err := ReadAccountsCSV(bytes.NewBufferString(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
