package sparrow

import "testing"

// TestTokensCarryTheirOwnersGene: a token made for a gene is stored on that
// gene's shard (the first byte of its hash), and tokens of the earlier
// format keep their plain hash.
func TestTokensCarryTheirOwnersGene(t *testing.T) {
	for gene := 0; gene < NumShards; gene++ {
		tok := NewToken(gene)
		if len(tok) != tokenLen {
			t.Fatalf("token %q of %d characters", tok, len(tok))
		}
		h := TokenHash(tok)
		if int(h[0]) != gene || len(h) != 32 {
			t.Fatalf("gene %d: hash starts with %d", gene, h[0])
		}
		if string(h[1:]) != string(HashSecret(tok)[1:]) {
			t.Fatal("the rest of the hash is not the token's SHA-256")
		}
	}
	if a, b := NewToken(7), NewToken(7); a == b {
		t.Fatal("two tokens alike")
	}
	legacy := "Z0IpHZW4wXGx1ZQEDPPzdp7IT5P9sXjZgPUIhSnKsos" // 43 characters, the earlier format
	if string(TokenHash(legacy)) != string(HashSecret(legacy)) {
		t.Fatal("a token of the earlier format changed its hash")
	}
}
