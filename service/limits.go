package service

import (
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"sparrow"
)

// Field limits. Every string a client sends that is stored, or looked up
// in a store, is checked here, in the service layer, so that every backend
// answers the same: what a column can hold differs between SQLite (nothing
// is enforced) and MariaDB (lengths and utf8mb4 are), what a client may
// send must not. Lengths in characters are Mastodon's; those in bytes are
// the columns'.
const (
	maxDisplayName    = 30   // characters (Mastodon)
	maxNote           = 500  // characters (Mastodon)
	maxEmail          = 255  // bytes (the accounts column)
	minPassword       = 8    // bytes
	maxPassword       = 72   // bytes: bcrypt's limit
	maxAppName        = 60   // characters (Mastodon's APP_NAME_LIMIT)
	maxWebsite        = 1024 // bytes (the apps column)
	maxRedirectURIs   = 2000 // bytes, all of an app's redirect URIs together (Mastodon's limit)
	maxIdempotencyKey = 128  // bytes
	maxSearchQuery    = 512  // characters
	maxLookup         = 320  // bytes: an acct, or an email to log in with
)

// languageRE is a language tag as clients send it (ISO 639, optionally with
// a region or script: "zh", "zh-Hans", "pt_BR"), at most 16 bytes (the
// statuses column).
var languageRE = regexp.MustCompile(`^[A-Za-z]{2,3}([-_][A-Za-z0-9]{1,8}){0,3}$`)

// checkText returns EInvalid unless s is valid UTF-8 of at most maxChars
// characters (0: no length limit). field names it in the message.
func checkText(field, s string, maxChars int) error {
	if !utf8.ValidString(s) {
		return sparrow.Errorf(sparrow.EInvalid, "Validation failed: %s is not valid UTF-8", field)
	}
	if maxChars > 0 && utf8.RuneCountInString(s) > maxChars {
		return sparrow.Errorf(sparrow.EInvalid, "Validation failed: %s is too long (maximum is %d characters)", field, maxChars)
	}
	return nil
}

// checkBytes returns EInvalid unless s is valid UTF-8 of at most maxBytes bytes.
func checkBytes(field, s string, maxBytes int) error {
	if !utf8.ValidString(s) {
		return sparrow.Errorf(sparrow.EInvalid, "Validation failed: %s is not valid UTF-8", field)
	}
	if len(s) > maxBytes {
		return sparrow.Errorf(sparrow.EInvalid, "Validation failed: %s is too long (maximum is %d bytes)", field, maxBytes)
	}
	return nil
}

// checkLanguage accepts "" (none) or a language tag (languageRE).
func checkLanguage(lang string) error {
	if lang != "" && !languageRE.MatchString(lang) {
		return sparrow.Errorf(sparrow.EInvalid, "Validation failed: Language is not a valid language tag")
	}
	return nil
}

// checkObject accepts "" (none) or an object-feed key "type:key" (objectRE)
// of valid UTF-8.
func checkObject(obj string) error {
	if obj != "" && (!utf8.ValidString(obj) || !objectRE.MatchString(obj)) {
		return sparrow.Errorf(sparrow.EInvalid, "Validation failed: object must look like type:key")
	}
	return nil
}

// checkWebsite accepts "" or an http(s) URL of at most maxWebsite bytes.
func checkWebsite(site string) error {
	if site == "" {
		return nil
	}
	if err := checkBytes("Website", site, maxWebsite); err != nil {
		return err
	}
	if u, err := url.Parse(site); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return sparrow.Errorf(sparrow.EInvalid, "Validation failed: Website is not a valid URL")
	}
	return nil
}

// validLookup reports whether s can name something in a store (an acct, an
// email, a username): valid UTF-8 of at most maxLookup bytes. A lookup of
// anything else finds nothing, without asking a store.
func validLookup(s string) bool {
	return utf8.ValidString(s) && len(s) <= maxLookup && !strings.ContainsRune(s, 0)
}
