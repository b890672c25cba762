package sqlstore

import "sparrow"

// Store implements Sparrow's durable store interfaces over sharded SQL stores.
type Store struct {
	shards *Shards
	ids    *sparrow.IDGen // edge ids (time-ordered, with the source's gene)
}

var (
	_ sparrow.AccountStore = (*Store)(nil)
	_ sparrow.StatusStore  = (*Store)(nil)
	_ sparrow.AuthStore    = (*Store)(nil)
)

// New returns a Store over shards. ids generates the ids the store assigns
// itself (edge ids); nil uses node 0 with the system clock.
func New(shards *Shards, ids ...*sparrow.IDGen) *Store {
	s := &Store{shards: shards, ids: sparrow.NewIDGen(0, nil)}
	if len(ids) > 0 && ids[0] != nil {
		s.ids = ids[0]
	}
	return s
}

// Shards returns the router.
func (s *Store) Shards() *Shards { return s.shards }

// IDs returns the generator of the ids the store assigns itself (edge ids,
// notification ids: time-ordered, each with the gene of the shard it is
// drawn for). Offline tools that write edge rows themselves (sqlstore/bulk)
// draw their ids from it, as SetEdges does: Next(from.Shard()).
func (s *Store) IDs() *sparrow.IDGen { return s.ids }
