package service

import (
	"context"

	"sparrow"
)

// The object feed (docs/seeds.md#seed-002): public and unlisted statuses
// posted about an object "type:key" (Status.Object), stored under
// "obj:<type>:<key>". Read by GET /api/v1/x/objects/{type}/{key}/statuses.
func init() {
	registerKeyedFeed(keyedFeed{
		name: "object",
		keys: func(st *sparrow.Status) []string {
			if st.Object == "" || !objectRE.MatchString(st.Object) || st.Visibility != sparrow.Public && st.Visibility != sparrow.Unlisted {
				return nil
			}
			return []string{st.Object}
		},
		normalize:  func(obj string) (string, bool) { return obj, checkObject(obj) == nil && obj != "" },
		storageKey: func(obj string, _ *sparrow.Status) string { return keyedObjKey(obj) },
		read: func(ctx context.Context, t *Timelines, obj string, p sparrow.Page) ([]sparrow.FeedItem, error) {
			return readStored(ctx, t, keyedObjKey(obj), p)
		},
	})
}

func keyedObjKey(obj string) string { return "obj:" + obj }

// Object returns the public and unlisted statuses posted about an object
// (Sparrow's extension), newest first. "type:key" must match the object
// syntax of posting (objectRE), or it is ENotFound.
func (t *Timelines) Object(ctx context.Context, v sparrow.Viewer, objType, key string, p sparrow.Page) ([]*sparrow.StatusView, error) {
	return t.Keyed(ctx, v, "object", objType+":"+key, p)
}
