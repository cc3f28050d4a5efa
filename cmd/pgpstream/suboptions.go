package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// gpg's option lists, --import-options, --export-options,
// --list-options, --verify-options and --keyserver-options, share one
// grammar (GnuPG's g10/misc.c, parse_options): words separated by
// commas or spaces, in any case, each a name or a prefix that no other
// name of the list shares, with "no-" before it to turn it off; a word
// may carry "=VALUE". Each list is read here, once, as its option is
// read, into a typed value the commands read; the last word said of a
// flag wins, as in gpg. The tables hold the words of gpg 2.2 and 2.4,
// so a client written for either gets no error for a word its gpg knows.

// A listWord is one word of a list.
type listWord[T any] struct {
	name string
	// set records the word (on is false after "no-"); nil: gpg's word,
	// accepted, and changes nothing in pgpstream.
	set func(t *T, on bool)
	// value records a NAME=VALUE word; it is called with "" for a bare
	// NAME, and with on false (and "") after "no-".
	value func(t *T, v string, on bool) error
	// refused, when set, says why pgpstream does not do what gpg's
	// word asks: the list is refused rather than the output being other
	// than the caller meant.
	refused string
}

// A listKind is one option list: its option's name, the word gpg's
// error message calls it by ("invalid import options"), and its words.
type listKind[T any] struct {
	option string
	what   string
	words  []listWord[T]
	// unknown, when set, is called for a word the list does not know,
	// instead of the error (gpg only warns for keyserver options).
	unknown func(t *T, word string)
}

// parse reads one argument of the option into t.
func (k *listKind[T]) parse(t *T, arg string) error {
	for _, tok := range splitList(arg) {
		word, on := tok, true
		if len(word) > 3 && strings.EqualFold(word[:3], "no-") {
			word, on = word[3:], false
		}
		name, val, _ := strings.Cut(word, "=")
		w, err := k.lookup(name, tok)
		if err != nil {
			return err
		}
		if w == nil {
			k.unknown(t, tok)
			continue
		}
		switch {
		case w.refused != "" && !on:
			// Off is what pgpstream does anyway.
		case w.refused != "":
			return usagef("--%s %s: %s", k.option, tok, w.refused)
		case w.value != nil:
			if !on {
				val = ""
			}
			if err := w.value(t, val, on); err != nil {
				return err
			}
		case w.set != nil:
			w.set(t, on)
		}
	}
	return nil
}

// splitList splits a list at commas and spaces, as gpg's optsep does,
// except inside a value in double quotes (GPGME passes
// show-sig-subpackets="20,26"); the quotes are dropped. A value given to
// a word that takes none is ignored, as in gpg.
func splitList(arg string) []string {
	var toks []string
	var cur strings.Builder
	quoted := false
	for i := 0; i < len(arg); i++ {
		c := arg[i]
		switch {
		case c == '"' && (quoted || (i > 0 && arg[i-1] == '=')):
			quoted = !quoted
		case !quoted && (c == ',' || c == ' '):
			if cur.Len() > 0 {
				toks = append(toks, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 {
		toks = append(toks, cur.String())
	}
	return toks
}

// lookup finds name: the word spelled so, else the one word it is a
// prefix of. nil with no error is an unknown word the list tolerates.
func (k *listKind[T]) lookup(name, tok string) (*listWord[T], error) {
	var found *listWord[T]
	for i := range k.words {
		w := &k.words[i]
		if strings.EqualFold(w.name, name) {
			return w, nil
		}
		if len(name) < len(w.name) && strings.EqualFold(w.name[:len(name)], name) {
			if found != nil && found.name != w.name {
				return nil, usagef("--%s: ambiguous option '%s': invalid %s", k.option, tok, k.what)
			}
			found = w
		}
	}
	if found == nil {
		if k.unknown != nil {
			return nil, nil
		}
		return nil, usagef("--%s: unknown option '%s': invalid %s", k.option, tok, k.what)
	}
	return found, nil
}

// flag is a set function for one bool of T.
func flag[T any](f func(*T) *bool) func(*T, bool) {
	return func(t *T, on bool) { *f(t) = on }
}

// listOption is the option table's set function for a list kept in the
// options at field.
func listOption[T any](k *listKind[T], field func(*options) *T) func(*options, string) error {
	return func(o *options, v string) error { return k.parse(field(o), v) }
}

// importOpts is --import-options. pgpstream acts on these four; gpg's
// other words are accepted as its clients pass them.
type importOpts struct {
	localSigs    bool // import-local-sigs: keep non-exportable certifications
	show         bool // import-show: list the keys (with --dry-run: only list)
	showOnly     bool // show-only: list instead of importing
	selfSigsOnly bool // self-sigs-only: drop certifications by other keys
}

var importOptionList = &listKind[importOpts]{option: "import-options", what: "import options", words: append([]listWord[importOpts]{
	{name: "import-local-sigs", set: flag(func(t *importOpts) *bool { return &t.localSigs })},
	{name: "allow-local-sigs", set: flag(func(t *importOpts) *bool { return &t.localSigs })},
	{name: "import-show", set: flag(func(t *importOpts) *bool { return &t.show })},
	{name: "self-sigs-only", set: flag(func(t *importOpts) *bool { return &t.selfSigsOnly })},
	{name: "show-only", set: flag(func(t *importOpts) *bool { return &t.showOnly })},
},
	// The rest of gpg's words, and those it keeps for old scripts.
	accepted[importOpts](`repair-pks-subkey-bug keep-ownertrust fast-import bulk-import merge-only
	import-clean import-minimal import-export restore import-restore repair-keys ignore-attributes
	only-pubkeys collapse-uids collapse-subkeys repair-hkp-subkey-bug import-unusable-sigs
	import-clean-sigs import-clean-uids convert-sk-to-pk`)...)}

// exportOpts is --export-options.
type exportOpts struct {
	localSigs bool // export-local-sigs: non-exportable certifications too
	minimal   bool // export-minimal: only the newest self-signatures
}

var exportOptionList = &listKind[exportOpts]{option: "export-options", what: "export options", words: []listWord[exportOpts]{
	{name: "export-local-sigs", set: flag(func(t *exportOpts) *bool { return &t.localSigs })},
	{name: "export-attributes"}, // attribute user IDs are always exported
	{name: "export-sensitive-revkeys", refused: "pgpstream does not export sensitive revocation keys"},
	{name: "export-clean", refused: "pgpstream does not clean keys on export; export-minimal keeps only the newest self-signatures"},
	{name: "export-realclean", refused: "pgpstream does not clean keys on export; export-minimal keeps only the newest self-signatures"},
	{name: "export-minimal", set: flag(func(t *exportOpts) *bool { return &t.minimal })},
	{name: "export-pka", refused: "pgpstream does not write PKA records"},
	{name: "export-dane", refused: "pgpstream does not write DANE records"},
	{name: "export-revocs", refused: "pgpstream does not export revocations alone"},
	{name: "backup", refused: "pgpstream does not write GnuPG's backup format"},
	{name: "export-backup", refused: "pgpstream does not write GnuPG's backup format"},
	{name: "mode1003", refused: "pgpstream does not write GnuPG's mode 1003 secret keys"},
	{name: "include-local-sigs", set: flag(func(t *exportOpts) *bool { return &t.localSigs })},
	{name: "include-attributes"},
	{name: "include-sensitive-revkeys", refused: "pgpstream does not export sensitive revocation keys"},
	{name: "export-unusable-sigs"},
	{name: "export-clean-sigs"},
	{name: "export-clean-uids"},
}}

// displayOpts is --list-options or --verify-options: listings and
// verification reports have one format here, so the words are checked
// (a typo fails as in gpg) and change nothing.
type displayOpts struct{}

// accepted is a list's words that change nothing here, from a
// space-separated list.
func accepted[T any](names string) []listWord[T] {
	var ws []listWord[T]
	for _, n := range strings.Fields(names) {
		ws = append(ws, listWord[T]{name: n})
	}
	return ws
}

var listOptionList = &listKind[displayOpts]{option: "list-options", what: "list options", words: accepted[displayOpts](`
	show-photos show-usage show-policy-urls show-notations show-std-notations show-standard-notations
	show-user-notations show-keyserver-urls show-uid-validity show-unusable-uids show-unusable-subkeys
	show-unusable-sigs show-keyring show-sig-expire show-sig-subpackets show-pref show-pref-verbose
	show-ownertrust show-only-fpr-mbox sort-sigs`)}

var verifyOptionList = &listKind[displayOpts]{option: "verify-options", what: "verify options", words: accepted[displayOpts](`
	show-photos show-policy-urls show-notations show-std-notations show-standard-notations
	show-user-notations show-keyserver-urls show-uid-validity show-unusable-uids show-primary-uid-only
	pka-lookups pka-trust-increase`)}

// ksOpts is --keyserver-options.
type ksOpts struct {
	timeout    time.Duration // timeout=SECONDS; 0: the default
	caCertFile string        // ca-cert-file=FILE, hkp-cacert=FILE
	notes      []string      // words gpg warns about, for the options' notes
}

// setKeyserverOptions is the option table's set function for
// --keyserver-options: gpg's warnings go to the options' notes.
func setKeyserverOptions(o *options, v string) error {
	err := keyserverOptionList.parse(&o.net.ksOptions, v)
	o.notes = append(o.notes, o.net.ksOptions.notes...)
	o.net.ksOptions.notes = nil
	return err
}

func ksCACert(name string) listWord[ksOpts] {
	return listWord[ksOpts]{name: name, value: func(t *ksOpts, v string, on bool) error {
		if on && v == "" {
			return usagef("--keyserver-options %s=FILE: no file given", name)
		}
		t.caCertFile = v
		return nil
	}}
}

var keyserverOptionList = &listKind[ksOpts]{option: "keyserver-options", what: "keyserver options", words: []listWord[ksOpts]{
	{name: "timeout", value: func(t *ksOpts, v string, on bool) error {
		if !on {
			t.timeout = 0
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return usagef("--keyserver-options timeout=%s: expected a number of seconds", v)
		}
		t.timeout = time.Duration(n) * time.Second
		return nil
	}},
	// pgpstream's own: it has no dirmngr whose configuration would say.
	ksCACert("ca-cert-file"),
	ksCACert("hkp-cacert"),
	// gpg's; the keyserver client here does what they ask by default or
	// has no use for them.
	{name: "max-cert-size", value: func(*ksOpts, string, bool) error { return nil }},
	{name: "http-proxy", refused: "pgpstream connects to keyservers directly; it has no proxy support"},
	{name: "include-revoked"},
	{name: "include-subkeys"},
	{name: "refresh-add-fake-v3-keyids"},
	{name: "auto-key-retrieve"},
	{name: "honor-keyserver-url"},
	{name: "honor-pka-record"},
}, unknown: func(t *ksOpts, word string) {
	// gpg takes its import and export options here too (for keys to
	// and from the server, whose third-party signatures are dropped
	// whatever they say), and warns of any other word and goes on:
	// those were for the keyserver helpers of GnuPG before 2.1.
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.ToLower(word), "no-"), "=")
	if w, err := importOptionList.lookup(name, word); err == nil && w != nil {
		return
	}
	if w, err := exportOptionList.lookup(name, word); err == nil && w != nil {
		return
	}
	t.notes = append(t.notes, fmt.Sprintf("keyserver option '%s' is unknown", word))
}}
