package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/gpgargs"
	"github.com/pgpstream/pgpstream/internal/bounded"
	"github.com/pgpstream/pgpstream/internal/hwf"
	"github.com/pgpstream/pgpstream/keyring"
	"github.com/pgpstream/pgpstream/packet"
	"github.com/pgpstream/pgpstream/tofu"
)

// How the command line is read.
//
// pgpstream parses argv itself, with gpg's grammar, into one typed value
// (options); urfave/cli only renders --help and runs the bench and
// version subcommands. urfave/cli (Go's flag package underneath) cannot
// express what gpg's clients rely on: unique prefixes of long options
// (--arm, --out), short options bundled with an argument (-bsau KEY,
// -uKEY, -z6), a table of which short options take one, options from
// gpg.conf merged under the command line, and "this is a gpg option
// pgpstream lacks" as a message of its own. A pre-parser that rewrote
// argv for urfave/cli would need every one of those rules anyway, and
// the values would then be read back by name; parsing once into a struct
// is the smaller and the checkable design.
//
// The grammar is gpg 2.2's (common/argparse.c): options come first, and
// the first argument that is not an option ends them (as does "--");
// an argument starting with "--" after that is a file name, and gets
// gpg's note that it was not taken as an option.

// optKind says what an entry of the option table does.
type optKind uint8

const (
	kOption  optKind = iota // changes how pgpstream does it (the zero value)
	kCommand                // chooses what pgpstream does
	kNoop                   // accepted from gpg's clients: changes nothing in pgpstream
)

// optDef is one option.
type optDef struct {
	long  string
	short byte   // 0: none
	arg   string // the value's name in --help; "" when the option takes none
	kind  optKind
	cat   string  // --help section
	usage string  // --help text; for kNoop, why it changes nothing
	alias string  // another spelling of this long option
	cmd   command // the command a kCommand entry gives (its alias's for an alias)
	set   func(o *options, v string) error
	// hidden options are left out of --help (aliases, and gpg's
	// spellings listed under their main name).
	hidden bool
}

const (
	catCommand = "Commands"
	catEncrypt = "Encryption"
	catKeys    = "Keys and passphrases"
	catIO      = "Input and output"
	catDiag    = "Diagnostics"
)

// options is one invocation's command line, after gpg.conf: every
// command reads these fields and nothing else.
type options struct {
	cmd       command // the command; commandNone for none
	encrypt   bool    // --encrypt was given (commandEncrypt also covers -c and -s -e)
	symmetric bool
	sign      bool
	args      []string

	// Recipients and signers, after gpg.conf's defaults were applied.
	recipients, hiddenRecipients []string
	recipientFiles               []string
	hiddenRecipientFiles         []string
	encryptTo, hiddenEncryptTo   []string
	noEncryptTo                  bool
	encryptToDefault             bool // --encrypt-to-default-key
	recipientSelf                bool // --default-recipient-self with no -r: the signing default
	recipientsByDefault          bool // recipients is --default-recipient, used as gpg does: unchecked
	defaultRecipient             string
	noDefaultRecipient           bool
	throwKeyIDs                  bool
	groups                       []group // newest first, as gpg lists them
	localUsers                   []string
	defaultKey                   string

	// Algorithms, as typed values after check.
	cipherName, compressName, digestName, aeadName string
	cipher                                         packet.CipherAlgo
	compress                                       packet.CompressionAlgo
	level                                          int // -z: -1 when not given; 1..9 compress
	bzip2Level                                     int // --bzip2-compress-level: BZIP2's level, -z's when not given
	digest                                         packet.HashAlgo
	digestSet                                      bool // --digest-algo (a preference is not an order)
	aead                                           packet.AEADAlgo
	aeadSet, chunkSet                              bool
	chunkSize                                      int
	s2kCount                                       int // --s2k-count; 0: the default
	threads                                        int
	personalCipher, personalDigest                 []string
	personalCompress                               []string
	forceAEAD, rfc4880bis                          bool
	compliance                                     string // --compliance: "" or gnupg, openpgp, rfc4880, rfc2440, rfc4880bis
	legacyLiteralHash, allowUnprotected            bool
	allowWeakDigests                               bool
	allowMultiple                                  bool // --allow-multiple-messages
	maxOutput                                      int64
	keyVersion                                     int
	textmode                                       bool
	notDashEscaped                                 bool                 // --not-dash-escaped (--clear-sign)
	unwrap                                         bool                 // --unwrap (--decrypt)
	useEmbeddedFilename                            bool                 // --use-embedded-filename (--decrypt)
	setFilename                                    string               // --set-filename
	sigNotations                                   []*gcpacket.Notation // --set-notation, --sig-notation
	sigPolicyURL                                   string               // --sig-policy-url, --set-policy-url
	forceSEIPDv2                                   bool

	// Listings and inspection.
	listFingerprint, withSubkeyFpr, withKeygrip bool
	withKeyOrigin                               bool
	withTOFUInfo                                bool        // --with-tofu-info
	tofuDefault                                 tofu.Policy // --tofu-default-policy
	listSigs, checkSigs                         bool
	importOpts                                  importOpts     // --import-options
	keyOrigin                                   keyring.Origin // --key-origin, for --import
	showSessionKey, json                        bool
	overrideSessionKey                          string    // --override-session-key
	overrideSessionKeyFd                        int       // --override-session-key-fd; -1: none
	fakedTime                                   fakedTime // --faked-system-time

	homedir       string // --homedir as given
	home          string // the home in use (see resolveHome)
	homeFrom      string // what chose it
	optionsFile   string
	noOptions     bool
	keyrings      []string // --keyring FILE
	noDefaultRing bool
	noKeyring     bool // --no-keyring: --no-default-keyring, and every --keyring dropped
	weakNames     []string
	weakDigests   map[packet.HashAlgo]bool // --weak-digest: signatures over these are refused

	noPermissionWarning, allowWeakKeySigs bool
	allowNonSelfsignedUID                 bool // --allow-non-selfsigned-uid

	passphrase              string
	passphraseSet           bool
	passphraseFile          string
	passphraseFd            int
	pinentryMode            string
	commandFd               int    // --command-fd; -1 for none
	commandFile             string // --command-file
	noSymkeyCache           bool
	listOnly                bool
	dryRun                  bool // --dry-run: --import and --gen-key change nothing
	withColons              bool
	keyidFormat, trustModel string
	outputName              string      // -o as given
	output                  fileArg     // -o, after --enable-special-filenames (check)
	exportOpts              exportOpts  // --export-options
	displayOpts             displayOpts // --list-options, --verify-options: checked, no effect
	armor, batch, yes       bool
	fsync                   bool // --fsync: flush every output file to disk
	quiet, verbose, noTTY   bool
	progress, noProgress    bool
	statusFd, loggerFd      int
	statusFile, loggerFile  string
	specialFilenames        bool
	multifile               bool
	disableHWF              []string
	profiles                map[string]string // profiling flag -> FILE
	notes                   []string          // warnings found while reading, shown once the prefix is known
	seen                    map[string]bool   // long names given, for rules about combinations
	commands                []command         // every command option, in order
	confWarnings            []string
	net                     netOpts // keyservers and WKD (network.go)
	keys                    keyOpts // certifications, the web of trust and --edit-key (keyedit_cli.go)
}

func (o *options) given(long string) bool { return o.seen[long] }

// signing reports whether the command makes a signature.
func (o *options) signing() bool {
	for _, c := range o.commands {
		if c == commandSign || c == commandDetachSign {
			return true
		}
	}
	return false
}

// Setters for the table.
func setBool(f func(*options) *bool) func(*options, string) error {
	return func(o *options, _ string) error { *f(o) = true; return nil }
}

func clearBool(f func(*options) *bool) func(*options, string) error {
	return func(o *options, _ string) error { *f(o) = false; return nil }
}

func setString(f func(*options) *string) func(*options, string) error {
	return func(o *options, v string) error { *f(o) = v; return nil }
}

func addString(f func(*options) *[]string) func(*options, string) error {
	return func(o *options, v string) error { *f(o) = append(*f(o), v); return nil }
}

func setInt(name string, f func(*options) *int) func(*options, string) error {
	return func(o *options, v string) error {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return usagef("--%s: want a number, not %q", name, v)
		}
		*f(o) = n
		return nil
	}
}

// setList sets a space- or comma-separated list (gpg's preference
// lists are written either way); the last one given wins.
func setList(f func(*options) *[]string) func(*options, string) error {
	return func(o *options, v string) error {
		*f(o) = append((*f(o))[:0], strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' })...)
		return nil
	}
}

func noop(*options, string) error { return nil }

// addNotation reads a notation as gpg's string_to_notation does: NAME=VALUE,
// with ! before NAME for a critical one; NAME is printable, without '=',
// and holds an '@' unless --expert (a name without one is the IETF's).
// The value is text: the notation is marked human-readable.
func addNotation(o *options, v string) error {
	critical := strings.HasPrefix(v, "!")
	name, value, ok := strings.Cut(strings.TrimPrefix(v, "!"), "=")
	if !ok || name == "" {
		return usagef("--sig-notation %q: a notation is NAME=VALUE", v)
	}
	for _, r := range name {
		if r < 0x21 || r > 0x7e {
			return usagef("--sig-notation %q: a notation name must have only printable characters", v)
		}
	}
	if !strings.Contains(name, "@") && !o.keys.expert {
		return usagef("--sig-notation %q: a user notation name must contain the '@' character", v)
	}
	o.sigNotations = append(o.sigNotations, &gcpacket.Notation{Name: name, Value: []byte(value), IsCritical: critical, IsHumanReadable: true})
	return nil
}

// setKeyOrigin reads gpg's --key-origin (g10/getkey.c's
// parse_key_origin): where the keys --import reads come from, recorded
// with them.
func setKeyOrigin(o *options, v string) error {
	org, ok := keyring.ParseOrigin(v)
	if !ok {
		return usagef("invalid argument for option \"--key-origin\": %q (self, file, url, wkd, dane, ks-pref, ks or unknown, then ,URL)", v)
	}
	o.keyOrigin = org
	return nil
}

// oneOf accepts the values gpg accepts for an option pgpstream takes
// without acting on it, so a typo still fails as it would in gpg.
func oneOf(name string, f func(*options) *string, values ...string) func(*options, string) error {
	return func(o *options, v string) error {
		for _, ok := range values {
			if strings.EqualFold(v, ok) {
				if f != nil {
					*f(o) = strings.ToLower(v)
				}
				return nil
			}
		}
		return usagef("--%s %s: want one of %s", name, v, strings.Join(values, ", "))
	}
}

// filesCommand is gpg's --encrypt-files and the like: the command with
// --multifile.
func filesCommand(c command) func(*options, string) error {
	return func(o *options, _ string) error {
		o.commands = append(o.commands, c)
		o.multifile = true
		return nil
	}
}

// giveCommand is the setter of a command entry.
func giveCommand(c command) func(*options, string) error {
	return func(o *options, _ string) error {
		o.commands = append(o.commands, c)
		return nil
	}
}

// optionTable is every option pgpstream knows: what it does, what
// --help says, and, for gpg's options that change nothing here, why.
// The kNoop entries are the one list of accepted-and-ignored options;
// --help and README's compatibility section are made from it.
var optionTable = append(append(append(append(baseOptions, profileOptions()...), lifecycleOpts...), networkOptions()...), docOptions...)

var baseOptions = []optDef{
	// Commands.
	{long: "encrypt", short: 'e', kind: kCommand, cmd: commandEncrypt, cat: catCommand, usage: "encrypt to the recipients (-r, -f)"},
	{long: "symmetric", short: 'c', kind: kCommand, cmd: commandSymmetric, cat: catCommand, usage: "encrypt with a passphrase (alone or with --encrypt)"},
	{long: "decrypt", short: 'd', kind: kCommand, cmd: commandDecrypt, cat: catCommand, usage: "decrypt FILE or standard input (also what a lone FILE does)"},
	{long: "sign", short: 's', kind: kCommand, cmd: commandSign, cat: catCommand, usage: "sign (alone, or with --encrypt/--symmetric inside the encryption)"},
	{long: "detach-sign", short: 'b', kind: kCommand, cmd: commandDetachSign, cat: catCommand, usage: "write a detached signature (-bs and -sb too)"},
	{long: "verify", kind: kCommand, cmd: commandVerify, cat: catCommand, usage: "check a signed message [FILE], or a detached signature: SIG [FILE]"},
	{long: "import", kind: kCommand, cmd: commandImport, cat: catCommand, usage: "import keys from FILEs or standard input (armored or binary)"},
	{long: "list-keys", short: 'k', kind: kCommand, cmd: commandListKeys, cat: catCommand, usage: "list public keys"},
	{long: "list-public-keys", alias: "list-keys", kind: kCommand, hidden: true},
	{long: "list-key", alias: "list-keys", kind: kCommand, hidden: true},
	{long: "fingerprint", kind: kCommand, cmd: commandFingerprint, cat: catCommand, usage: "list keys with their fingerprints in groups of four"},
	{long: "list-sigs", kind: kCommand, cmd: commandListSigs, cat: catCommand, usage: "list keys with the signatures on them"},
	{long: "list-signatures", alias: "list-sigs", kind: kCommand, hidden: true},
	{long: "check-sigs", kind: kCommand, cmd: commandCheckSigs, cat: catCommand, usage: "list keys with their signatures, each one checked"},
	{long: "check-signatures", alias: "check-sigs", kind: kCommand, hidden: true},
	{long: "show-keys", kind: kCommand, cmd: commandShowKeys, cat: catCommand, usage: "list the keys in FILEs without importing them"},
	{long: "list-packets", kind: kCommand, cmd: commandListPackets, cat: catCommand, usage: "list the packets of FILE as gpg does, decrypting what the keyring opens"},
	{long: "clear-sign", kind: kCommand, cmd: commandClearSign, cat: catCommand, usage: "make a cleartext signed message: FILE to FILE.asc"},
	{long: "clearsign", alias: "clear-sign", kind: kCommand, hidden: true},
	{long: "store", kind: kCommand, cmd: commandStore, cat: catCommand, usage: "write the input as a literal data packet, neither encrypted nor signed (-z N compresses it)"},
	{long: "dearmor", kind: kCommand, cmd: commandDearmor, cat: catCommand, usage: "decode ASCII armor: FILE to FILE.gpg, or standard input to standard output"},
	{long: "dearmour", alias: "dearmor", kind: kCommand, hidden: true},
	{long: "enarmor", kind: kCommand, cmd: commandEnarmor, cat: catCommand, usage: "armor any file as gpg --enarmor does: FILE to FILE.asc"},
	{long: "enarmour", alias: "enarmor", kind: kCommand, hidden: true},
	{long: "list-secret-keys", short: 'K', kind: kCommand, cmd: commandListSecretKeys, cat: catCommand, usage: "list secret keys"},
	{long: "export", kind: kCommand, cmd: commandExport, cat: catCommand, usage: "export public keys"},
	{long: "export-secret-keys", kind: kCommand, cmd: commandExportSecretKeys, cat: catCommand, usage: "export secret keys"},
	{long: "export-secret-subkeys", kind: kCommand, cmd: commandExportSecretSubkeys, cat: catCommand, usage: "export secret keys with the primary key a GNU dummy stub: the subkeys' secrets only, for a key that cannot certify"},
	{long: "quick-gen-key", kind: kCommand, cmd: commandQuickGenKey, cat: catCommand, usage: "generate a key: UID [ALGO [USAGE [EXPIRE]]] (ALGO: future-default, ed25519, rsa3072, rsa4096, nistp256, ed448; USAGE: sign, encr, cert, auth; EXPIRE: never, 2030-01-31, 1y; default 2y, as gpg 2.2)"},
	{long: "quick-generate-key", alias: "quick-gen-key", kind: kCommand, hidden: true},
	{long: "delete-keys", kind: kCommand, cmd: commandDeleteKeys, cat: catCommand, usage: "delete public keys by full fingerprint (needs --batch)"},
	{long: "delete-key", alias: "delete-keys", kind: kCommand, hidden: true},
	{long: "delete-secret-keys", kind: kCommand, cmd: commandDeleteSecretKeys, cat: catCommand, usage: "delete the secret parts of keys by full fingerprint (needs --batch; --yes: gpg-agent does not ask to confirm)"},
	{long: "delete-secret-key", alias: "delete-secret-keys", kind: kCommand, hidden: true},
	{long: "delete-secret-and-public-key", kind: kCommand, cmd: commandDeleteSecretAndPublicKey, cat: catCommand, usage: "delete keys with their secret parts by full fingerprint (needs --batch)"},
	{long: "delete-secret-and-public-keys", alias: "delete-secret-and-public-key", kind: kCommand, hidden: true},
	{long: "version", kind: kCommand, cmd: commandVersion, cat: catCommand, usage: "print the version in GnuPG's shape, then the CPU features and engines"},
	{long: "list-config", kind: kCommand, cmd: commandListConfig, cat: catCommand, usage: "print gpg's cfg: lines: the algorithms written (cipher, digest, compress, aead) and read (pubkey, readcipher, readdigest, readcompress), the curves and the groups"},
	{long: "gpgconf-test", kind: kCommand, cmd: commandGpgconfTest, cat: catCommand, usage: "read the options and gpg.conf, then exit: 0 when they are fine"},
	{long: "dump-options", kind: kCommand, cmd: commandDumpOptions, cat: catCommand, usage: "print every long option, one a line"},
	{long: "gen-key", kind: kCommand, cmd: commandGenKey, cat: catCommand, usage: "with --batch: generate the keys of a parameter file [FILE] (gpg's unattended key generation format)"},
	{long: "generate-key", alias: "gen-key", kind: kCommand, hidden: true},
	{long: "print-md", kind: kCommand, cmd: commandPrintMD, cat: catCommand, usage: "print the digest of FILEs or standard input: ALGO [FILE...] (MD5, SHA1, RMD160, SHA224, SHA256, SHA384, SHA512)"},
	{long: "print-mds", kind: kCommand, cmd: commandPrintMDs, cat: catCommand, usage: "print every digest of FILEs or standard input"},
	{long: "gen-random", kind: kCommand, cmd: commandGenRandom, cat: catCommand, usage: "write COUNT random bytes: LEVEL COUNT (base64 with --armor)"},
	{long: "import-ownertrust", kind: kCommand, cmd: commandImportOwnertrust, cat: catCommand, usage: "set owner trust from FILEs or standard input, lines FINGERPRINT:LEVEL: (6 ultimate, 5 full, 4 marginal, 3 never, 2 undefined)"},
	{long: "export-ownertrust", kind: kCommand, cmd: commandExportOwnertrust, cat: catCommand, usage: "print the owner trust set, as --import-ownertrust reads it"},
	{long: "quick-set-ownertrust", kind: kCommand, cmd: commandQuickSetOwnertrust, cat: catCommand, usage: "set a key's owner trust: FINGERPRINT unknown|undefined|never|marginal|full|ultimate"},
	{long: "tofu-policy", kind: kCommand, cmd: commandTOFUPolicy, cat: catCommand, usage: "POLICY KEY...: set the TOFU policy (auto, good, unknown, bad or ask) of each KEY's user IDs that are not revoked, in the history gpg shares (tofu.db)"},
	{long: "check-trustdb", kind: kCommand, cmd: commandCheckTrustDB, cat: catCommand, usage: "compute every key's validity from the certifications and owner trust (gpg's pgp model) and report it as gpg does"},
	{long: "update-trustdb", kind: kCommand, cmd: commandUpdateTrustDB, cat: catCommand, usage: "--check-trustdb, asking the owner trust of each introducer that has none (not in --batch)"},
	{long: "edit-key", kind: kCommand, cmd: commandEditKey, cat: catCommand, usage: "KEY [COMMAND...]: change a key with gpg's menu (gpg> on the terminal, GET_LINE keyedit.prompt on --command-fd): sign, lsign, tsign, trust, expire, adduid, deluid, revuid, primary, addkey, revkey, passwd, key N, uid N, list, save, quit"},
	{long: "key-edit", alias: "edit-key", kind: kCommand, hidden: true},
	{long: "sign-key", kind: kCommand, cmd: commandSignKey, cat: catCommand, usage: "KEY: certify the key's user IDs with your key (-u), asking as gpg does"},
	{long: "lsign-key", kind: kCommand, cmd: commandLsignKey, cat: catCommand, usage: "KEY: --sign-key with a local (non-exportable) certification"},
	{long: "quick-sign-key", kind: kCommand, cmd: commandQuickSignKey, cat: catCommand, usage: "FPR [NAMES]: certify the key (or the user IDs NAMES) with your key (-u), without asking"},
	{long: "quick-lsign-key", kind: kCommand, cmd: commandQuickLsignKey, cat: catCommand, usage: "FPR [NAMES]: --quick-sign-key with a local (non-exportable) certification"},
	{long: "dump-option-table", kind: kCommand, cmd: commandDumpOptionTable, cat: catCommand, usage: "print the option table as gpgconf reads it"},
	{long: "encrypt-files", kind: kCommand, cat: catCommand, usage: "--encrypt --multifile", set: filesCommand(commandEncrypt)},
	{long: "decrypt-files", kind: kCommand, cat: catCommand, usage: "--decrypt --multifile", set: filesCommand(commandDecrypt)},
	{long: "verify-files", kind: kCommand, cat: catCommand, usage: "--verify --multifile", set: filesCommand(commandVerify)},
	{long: "gpgconf-list", kind: kCommand, cmd: commandGpgconfList, cat: catCommand, usage: "print the defaults gpgconf --list-options gpg reads"},
	{long: "help", short: 'h', kind: kCommand, cmd: commandHelp, cat: catCommand, usage: "show this help"},

	// Encryption.
	{long: "recipient", short: 'r', arg: "KEY", cat: catEncrypt, usage: "encrypt to KEY, one key each: fingerprint, key ID, <addr>, @part, =uid or user ID substring", set: addString(func(o *options) *[]string { return &o.recipients })},
	{long: "remote-user", alias: "recipient", arg: "KEY", hidden: true},
	{long: "hidden-recipient", short: 'R', arg: "KEY", cat: catEncrypt, usage: "like -r, but the message does not name the key", set: addString(func(o *options) *[]string { return &o.hiddenRecipients })},
	{long: "recipient-file", short: 'f', arg: "FILE", cat: catEncrypt, usage: "encrypt to the certificate in FILE", set: addString(func(o *options) *[]string { return &o.recipientFiles })},
	{long: "hidden-recipient-file", short: 'F', arg: "FILE", cat: catEncrypt, usage: "like -f, but the message does not name the key", set: addString(func(o *options) *[]string { return &o.hiddenRecipientFiles })},
	{long: "encrypt-to", arg: "KEY", cat: catEncrypt, usage: "also encrypt to KEY whenever there is another recipient (gpg.conf)", set: addString(func(o *options) *[]string { return &o.encryptTo })},
	{long: "hidden-encrypt-to", arg: "KEY", cat: catEncrypt, usage: "like --encrypt-to, but the message does not name the key", set: addString(func(o *options) *[]string { return &o.hiddenEncryptTo })},
	{long: "encrypt-to-default-key", cat: catEncrypt, usage: "also encrypt to the --default-key whenever there is another recipient, as --encrypt-to does", set: setBool(func(o *options) *bool { return &o.encryptToDefault })},
	{long: "no-encrypt-to", cat: catEncrypt, usage: "ignore every --encrypt-to and --hidden-encrypt-to", set: setBool(func(o *options) *bool { return &o.noEncryptTo })},
	{long: "default-recipient", arg: "KEY", cat: catEncrypt, usage: "encrypt to KEY when no -r is given", set: setString(func(o *options) *string { return &o.defaultRecipient })},
	{long: "default-recipient-self", cat: catEncrypt, usage: "encrypt to the default key (--default-key, else the first secret key) when no -r is given", set: setBool(func(o *options) *bool { return &o.recipientSelf })},
	{long: "no-default-recipient", cat: catEncrypt, usage: "forget --default-recipient and --default-recipient-self", set: setBool(func(o *options) *bool { return &o.noDefaultRecipient })},
	{long: "group", arg: "NAME=KEYS", cat: catEncrypt, usage: "-r NAME (and the other recipient options) stands for the keys KEYS", set: addGroup},
	{long: "ungroup", arg: "NAME", cat: catEncrypt, usage: "forget the group NAME", hidden: true, set: func(o *options, v string) error {
		o.groups = dropGroup(o.groups, strings.TrimSpace(v))
		return nil
	}},
	{long: "no-groups", cat: catEncrypt, usage: "forget every group", hidden: true, set: func(o *options, _ string) error { o.groups = nil; return nil }},
	{long: "throw-keyids", cat: catEncrypt, usage: "name no recipient in the message, as -R does", set: setBool(func(o *options) *bool { return &o.throwKeyIDs })},
	{long: "no-throw-keyids", cat: catEncrypt, usage: "undo --throw-keyids", hidden: true, set: clearBool(func(o *options) *bool { return &o.throwKeyIDs })},
	{long: "cipher-algo", arg: "NAME", cat: catEncrypt, usage: "cipher to write: AES128, AES192 or AES256 (default AES256)", set: setString(func(o *options) *string { return &o.cipherName })},
	{long: "compress-algo", arg: "NAME", cat: catEncrypt, usage: "compression to write: none (default), zip, zlib, bzip2 (also gpg's numbers 0-3)", set: setString(func(o *options) *string { return &o.compressName })},
	{long: "compression-algo", alias: "compress-algo", arg: "NAME", hidden: true},
	{long: "compress-level", short: 'z', arg: "N", cat: catEncrypt, usage: "compress at level N, 1-9 (zlib unless --compress-algo says), or 0: none; for every command that writes a message", set: setInt("compress-level", func(o *options) *int { return &o.level })},
	{long: "digest-algo", arg: "NAME", cat: catEncrypt, usage: "hash for signatures: SHA256 (default), SHA384, SHA512, SHA224, SHA3-256, SHA3-512 or SHA1", set: setString(func(o *options) *string { return &o.digestName })},
	{long: "personal-cipher-preferences", alias: "", arg: "LIST", cat: catEncrypt, usage: "the first AES cipher in LIST is the default for --cipher-algo", set: setList(func(o *options) *[]string { return &o.personalCipher })},
	{long: "personal-digest-preferences", arg: "LIST", cat: catEncrypt, usage: "the first hash in LIST signs, unless --digest-algo says or the key needs a longer one", set: setList(func(o *options) *[]string { return &o.personalDigest })},
	{long: "personal-compress-preferences", arg: "LIST", cat: catEncrypt, usage: "the first zip, zlib or bzip2 in LIST is what -z compresses with (compression stays off unless asked)", set: setList(func(o *options) *[]string { return &o.personalCompress })},
	{long: "personal-cipher-prefs", alias: "personal-cipher-preferences", arg: "LIST", hidden: true},
	{long: "personal-digest-prefs", alias: "personal-digest-preferences", arg: "LIST", hidden: true},
	{long: "personal-compress-prefs", alias: "personal-compress-preferences", arg: "LIST", hidden: true},
	{long: "local-user", short: 'u', arg: "KEY", cat: catEncrypt, usage: "sign with KEY (default: --default-key, else the first secret key that can sign)", set: addString(func(o *options) *[]string { return &o.localUsers })},
	{long: "sign-with", alias: "local-user", arg: "KEY", hidden: true},
	{long: "user", alias: "local-user", arg: "KEY", hidden: true},
	{long: "default-key", arg: "KEY", cat: catEncrypt, usage: "sign with KEY when no -u is given", set: setString(func(o *options) *string { return &o.defaultKey })},
	{long: "allow-weak-digest-algos", cat: catEncrypt, usage: "check SHA-1 data signatures made after 2013-02-01, which are otherwise refused, and allow --digest-algo SHA1", set: setBool(func(o *options) *bool { return &o.allowWeakDigests })},
	{long: "legacy-literal-hash", cat: catEncrypt, usage: "check a signature that follows the data with no one-pass packet (old GnuPG); hashes every message with SHA1 and RIPEMD160", set: setBool(func(o *options) *bool { return &o.legacyLiteralHash })},
	{long: "force-aead", cat: catEncrypt, usage: "write AEAD encrypted data as gpg 2.4 does: the LibrePGP packet (tag 20, OCB), or RFC 9580 SEIPD v2 when every recipient announces it", set: setBool(func(o *options) *bool { return &o.forceAEAD })},
	{long: "force-seipdv2", cat: catEncrypt, usage: "write RFC 9580 SEIPD v2 (with SKESK v6 for passphrases), whatever the recipients announce; gpg 2.2 and 2.4 cannot read it", set: setBool(func(o *options) *bool { return &o.forceSEIPDv2 })},
	{long: "force-ocb", cat: catEncrypt, usage: "gpg 2.4's spelling of --force-aead", set: setBool(func(o *options) *bool { return &o.forceAEAD })},
	{long: "compliance", arg: "NAME", cat: catEncrypt, usage: "gnupg (the default), openpgp, rfc4880 and rfc2440 (what pgpstream writes unless AEAD is asked for), or rfc4880bis (as --rfc4880bis, with --force-aead)", set: setString(func(o *options) *string { return &o.compliance })},
	{long: "rfc4880bis", cat: catEncrypt, usage: "with --force-aead: always the LibrePGP AEAD Encrypted Data packet (tag 20, SKESK v5), which GnuPG 2.4 reads", set: setBool(func(o *options) *bool { return &o.rfc4880bis })},
	{long: "aead-algo", arg: "NAME", cat: catEncrypt, usage: "AEAD mode to write: OCB (default), EAX, or GCM (GCM for SEIPD v2 only)", set: setString(func(o *options) *string { return &o.aeadName })},
	{long: "bzip2-compress-level", arg: "N", cat: catEncrypt, usage: "BZIP2's level (its block size, N * 100 kB), 1-9; -z's level when not given", set: setInt("bzip2-compress-level", func(o *options) *int { return &o.bzip2Level })},
	{long: "chunk-size", arg: "N", cat: catEncrypt, usage: "AEAD chunk size as gpg's exponent N, 2^N bytes: 6 (64 B) to 22 (4 MiB, the default)", set: setInt("chunk-size", func(o *options) *int { return &o.chunkSize })},
	{long: "s2k-count", arg: "N", cat: catEncrypt, usage: "bytes the passphrase S2K of -c hashes: 1024 to 65011712 (the default), rounded up to a count the format can say, as gpg does", set: setInt("s2k-count", func(o *options) *int { return &o.s2kCount })},
	{long: "threads", arg: "N", cat: catEncrypt, usage: "AEAD chunks encrypted or decrypted at once (default: one per CPU)", set: setInt("threads", func(o *options) *int { return &o.threads })},

	// Keys and passphrases.
	{long: "homedir", arg: "DIR", cat: catKeys, usage: "key directory (default $PGPSTREAM_HOME, else $GNUPGHOME, else ~/.gnupg if it exists, else ~/.pgpstream)", set: setString(func(o *options) *string { return &o.homedir })},
	{long: "options", arg: "FILE", cat: catKeys, usage: "read options from FILE instead of HOME/gpg.conf", set: setString(func(o *options) *string { return &o.optionsFile })},
	{long: "no-options", cat: catKeys, usage: "read no gpg.conf", set: setBool(func(o *options) *bool { return &o.noOptions })},
	{long: "passphrase", arg: "PW", cat: catKeys, usage: "the passphrase itself (visible to other users in ps: prefer --passphrase-file or --passphrase-fd)", set: func(o *options, v string) error { o.passphrase, o.passphraseSet = v, true; return nil }},
	{long: "passphrase-file", arg: "FILE", cat: catKeys, usage: "read the passphrase from the first line of FILE", set: setString(func(o *options) *string { return &o.passphraseFile })},
	{long: "passphrase-fd", arg: "N", cat: catKeys, usage: "read the passphrase from file descriptor N (0: standard input)", set: setInt("passphrase-fd", func(o *options) *int { return &o.passphraseFd })},
	{long: "pinentry-mode", arg: "MODE", cat: catKeys, usage: "how a passphrase is asked: default/ask (gpg-agent's pinentry, else the terminal), loopback (--passphrase*, the command fd or the terminal answer, never a pinentry; also for the keys a GnuPG home's agent holds), cancel or error (never asked)", set: oneOf("pinentry-mode", func(o *options) *string { return &o.pinentryMode }, "default", "ask", "cancel", "error", "loopback")},
	{long: "command-fd", arg: "N", cat: catKeys, usage: "answer questions from descriptor N, a line each, as gpg does: each is announced on the status stream (GET_HIDDEN passphrase.enter, GET_BOOL, GET_LINE) and acknowledged with GOT_IT", set: setInt("command-fd", func(o *options) *int { return &o.commandFd })},
	{long: "command-file", arg: "FILE", cat: catKeys, usage: "like --command-fd, with the answers in FILE", set: setString(func(o *options) *string { return &o.commandFile })},
	{long: "no-symkey-cache", cat: catKeys, usage: "neither look up nor store a message's passphrase in gpg-agent's cache", set: setBool(func(o *options) *bool { return &o.noSymkeyCache })},
	{long: "list-only", cat: catIO, usage: "with --decrypt or --list-packets: name the message's recipients (and passphrases) and decrypt nothing", set: setBool(func(o *options) *bool { return &o.listOnly })},
	{long: "with-colons", cat: catKeys, usage: "list keys and configuration in gpg's machine-readable format", set: setBool(func(o *options) *bool { return &o.withColons })},
	{long: "key-version", arg: "N", cat: catKeys, usage: "--quick-gen-key makes a version 4 (default) or an RFC 9580 version 6 key", set: setInt("key-version", func(o *options) *int { return &o.keyVersion })},
	{long: "keyring", arg: "FILE", cat: catKeys, usage: "also use the certificates in FILE (OpenPGP, binary or armored; read, never written)", set: addString(func(o *options) *[]string { return &o.keyrings })},
	{long: "no-keyring", cat: catKeys, usage: "use no keys at all, neither the home's nor --keyring's (recipients then come from -f and -F)", set: func(o *options, _ string) error {
		o.noDefaultRing, o.noKeyring = true, true
		return nil
	}},
	{long: "no-default-keyring", cat: catKeys, usage: "leave the home's keys out: only --keyring's are used", set: setBool(func(o *options) *bool { return &o.noDefaultRing })},
	{long: "weak-digest", arg: "NAME", cat: catKeys, usage: "refuse signatures made with hash NAME (repeatable)", set: addString(func(o *options) *[]string { return &o.weakNames })},
	{long: "no-permission-warning", cat: catKeys, usage: "do not warn about a home or secret ring that other users may read, nor about files of the home that are not used", set: setBool(func(o *options) *bool { return &o.noPermissionWarning })},
	{long: "allow-non-selfsigned-uid", cat: catKeys, usage: "take a user ID without a valid self-signature as if self-signed: imported, listed and matched, and a key with only such user IDs valid; asked again on every run (anyone can add such a user ID to a key)", set: setBool(func(o *options) *bool { return &o.allowNonSelfsignedUID })},
	{long: "no-allow-non-selfsigned-uid", cat: catKeys, usage: "undo --allow-non-selfsigned-uid (the default)", set: clearBool(func(o *options) *bool { return &o.allowNonSelfsignedUID })},
	{long: "allow-weak-key-signatures", cat: catKeys, usage: "accept SHA-1 self-signatures made after 2023-02-01 (rejected by default)", set: setBool(func(o *options) *bool { return &o.allowWeakKeySigs })},
	{long: "keyid-format", arg: "FORMAT", cat: catKeys, usage: "none, short, 0xshort, long or 0xlong: how messages such as \"public key is KEYID\" write key IDs (long by default); listings show long key IDs and fingerprints", set: oneOf("keyid-format", func(o *options) *string { return &o.keyidFormat }, "none", "short", "0xshort", "long", "0xlong")},
	{long: "marginals-needed", arg: "N", cat: catKeys, usage: "pgp model: marginally trusted certifications that make a user ID fully valid (default 3)", set: setInt("marginals-needed", func(o *options) *int { return &o.keys.marginals })},
	{long: "completes-needed", arg: "N", cat: catKeys, usage: "pgp model: fully trusted certifications that make a user ID fully valid (default 1)", set: setInt("completes-needed", func(o *options) *int { return &o.keys.completes })},
	{long: "max-cert-depth", arg: "N", cat: catKeys, usage: "pgp model: how far from your own keys certifications reach (default 5)", set: setInt("max-cert-depth", func(o *options) *int { return &o.keys.maxDepth })},
	{long: "min-cert-level", arg: "N", cat: catKeys, usage: "pgp model: certifications of a lower level (0x11 is level 1) count for nothing (default 2)", set: setInt("min-cert-level", func(o *options) *int { return &o.keys.minLevel })},
	{long: "ask-cert-level", cat: catKeys, usage: "--sign-key and --edit-key's sign ask how carefully the key was checked (certification level 0 to 3)", set: setBool(func(o *options) *bool { return &o.keys.askLevel })},
	{long: "no-ask-cert-level", cat: catKeys, hidden: true, usage: "undo --ask-cert-level", set: clearBool(func(o *options) *bool { return &o.keys.askLevel })},
	{long: "default-cert-expire", arg: "EXPIRE", cat: catKeys, usage: "new certifications expire EXPIRE from now (0, the default: never; N with d, w, m or y)", set: setCertExpire},
	{long: "no-ask-cert-expire", kind: kNoop, usage: "pgpstream never asks when a certification expires: --default-cert-expire says"},
	{long: "default-cert-level", arg: "N", cat: catKeys, usage: "the certification level of new certifications, 0 (generic, the default) to 3", set: setInt("default-cert-level", func(o *options) *int { return &o.keys.certLevel })},
	{long: "expert", cat: catKeys, usage: "--edit-key's addkey offers gpg's expert menu (ECC keys)", set: setBool(func(o *options) *bool { return &o.keys.expert })},
	{long: "no-expert", cat: catKeys, hidden: true, usage: "undo --expert", set: clearBool(func(o *options) *bool { return &o.keys.expert })},
	{long: "trust-model", arg: "MODEL", cat: catKeys, usage: "pgp (default: keys made here, or given ultimate owner trust, are valid, and so are the keys they certify, as gpg's web of trust has it), tofu (a key is as valid as its history of use says: see --tofu-policy), tofu+pgp (the better of the two), direct (a key is as valid as its owner trust) or always (every key is used); -r keys that are not valid are refused, as in gpg", set: oneOf("trust-model", func(o *options) *string { return &o.trustModel }, "pgp", "classic", "tofu", "tofu+pgp", "direct", "always", "auto")},

	// Input and output.
	{long: "output", short: 'o', arg: "FILE", cat: catIO, usage: "write to FILE (- for standard output)", set: setString(func(o *options) *string { return &o.outputName })},
	{long: "armor", short: 'a', cat: catIO, usage: "write ASCII armor", set: setBool(func(o *options) *bool { return &o.armor })},
	{long: "armour", alias: "armor", hidden: true},
	{long: "no-armor", cat: catIO, usage: "write binary (the default)", hidden: true, set: clearBool(func(o *options) *bool { return &o.armor })},
	{long: "no-armour", alias: "no-armor", hidden: true},
	{long: "batch", cat: catIO, usage: "never ask anything", set: setBool(func(o *options) *bool { return &o.batch })},
	{long: "no-batch", cat: catIO, hidden: true, usage: "undo --batch", set: clearBool(func(o *options) *bool { return &o.batch })},
	{long: "yes", cat: catIO, usage: "assume yes: overwrite files, delete keys", set: setBool(func(o *options) *bool { return &o.yes })},
	{long: "fsync", cat: catIO, usage: "flush every -o FILE to disk before it gets its name, so that a crash leaves it whole or absent (a file replaced with --yes always is); pgpstream's own option, gpg has none", set: setBool(func(o *options) *bool { return &o.fsync })},
	{long: "quiet", short: 'q', cat: catDiag, usage: "say less", set: setBool(func(o *options) *bool { return &o.quiet })},
	{long: "verbose", short: 'v', cat: catDiag, usage: "say more", set: setBool(func(o *options) *bool { return &o.verbose })},
	{long: "no-verbose", cat: catDiag, usage: "say the usual amount (undo --verbose)", set: clearBool(func(o *options) *bool { return &o.verbose })},
	{long: "no-tty", cat: catIO, usage: "never use the terminal: no prompt (a missing passphrase is an error), no progress line", set: setBool(func(o *options) *bool { return &o.noTTY })},
	{long: "allow-unprotected", cat: catIO, usage: "DANGEROUS: read Symmetrically Encrypted Data (tag 9), which has no integrity protection, and write data no signature vouches for: an unencrypted message's, or to -o FILE a message whose signatures could not be checked (exit status 2)", set: setBool(func(o *options) *bool { return &o.allowUnprotected })},
	{long: "ignore-mdc-error", alias: "allow-unprotected", hidden: true},
	{long: "allow-multiple-messages", cat: catIO, usage: "read each message of the input in turn (-d, --verify), each checked and reported on its own; --output is written only if every one succeeds (without it, a second message is an error)", set: setBool(func(o *options) *bool { return &o.allowMultiple })},
	{long: "no-allow-multiple-messages", cat: catIO, hidden: true, usage: "undo --allow-multiple-messages: an input holds one message", set: clearBool(func(o *options) *bool { return &o.allowMultiple })},
	{long: "max-output", arg: "N", cat: catIO, usage: "refuse compressed data that inflates beyond N bytes (0: no limit)", set: func(o *options, v string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return usagef("--max-output: want a number of bytes, not %q", v)
		}
		o.maxOutput = n
		return nil
	}},
	{long: "set-filename", arg: "NAME", cat: catIO, usage: "the file name the literal data packet of -e, -c and -s carries (default: the input's name, none for standard input)", set: setString(func(o *options) *string { return &o.setFilename })},
	{long: "sig-notation", arg: "NAME=VALUE", cat: catEncrypt, usage: "put the notation NAME=VALUE in each new data signature (!NAME=VALUE: critical); NAME has an '@' (without --expert)", set: addNotation},
	{long: "set-notation", alias: "sig-notation", arg: "NAME=VALUE", hidden: true},
	{long: "sig-policy-url", arg: "URL", cat: catEncrypt, usage: "put the policy URL in each new data signature", set: func(o *options, v string) error { o.sigPolicyURL = strings.TrimPrefix(v, "!"); return nil }},
	{long: "set-policy-url", alias: "sig-policy-url", arg: "URL", hidden: true},
	{long: "textmode", short: 't', cat: catIO, usage: "-s, -b, -e and -c take the input as text, as gpg does: each line ending becomes CR LF, the literal data is marked as text and signatures are text signatures (type 0x01); when reading, a signature's type decides", set: setBool(func(o *options) *bool { return &o.textmode })},
	{long: "use-embedded-filename", cat: catIO, usage: "with --decrypt and no -o: write to the file name the literal data packet carries, in the current directory; only a plain base name, and an existing file only with --yes", set: setBool(func(o *options) *bool { return &o.useEmbeddedFilename })},
	{long: "no-use-embedded-filename", cat: catIO, hidden: true, usage: "undo --use-embedded-filename", set: clearBool(func(o *options) *bool { return &o.useEmbeddedFilename })},
	{long: "no-textmode", cat: catIO, hidden: true, usage: "undo --textmode", set: clearBool(func(o *options) *bool { return &o.textmode })},
	{long: "unwrap", cat: catIO, usage: "--decrypt writes the packets the encrypted data holds, as they are (compressed, one-pass signature, literal data, signatures), instead of the literal data, so that a later --verify checks the signatures; with --armor as a PGP MESSAGE. Nothing inside is decompressed or verified; the MDC or AEAD tag is checked, and the output held back for it, as always. A message that is not encrypted is decrypted as usual", set: setBool(func(o *options) *bool { return &o.unwrap })},
	{long: "not-dash-escaped", cat: catIO, usage: "--clear-sign writes the text as it is, no line dash-escaped (for patches), under gpg's NotDashEscaped header; the signature covers the text's bytes exactly, trailing whitespace and line endings included. Such messages are read whether it is given or not", set: setBool(func(o *options) *bool { return &o.notDashEscaped })},
	{long: "progress", cat: catIO, usage: "show bytes done, rate and ETA on standard error when it is a terminal (the default there, without --batch), and as PROGRESS status lines; never while a question is asked, nor over the status lines or the output on the same terminal", set: setBool(func(o *options) *bool { return &o.progress })},
	{long: "no-progress", cat: catIO, usage: "never show progress", set: setBool(func(o *options) *bool { return &o.noProgress })},
	{long: "status-fd", arg: "N", cat: catIO, usage: "write gpg's machine-readable status lines to file descriptor N", set: setInt("status-fd", func(o *options) *int { return &o.statusFd })},
	{long: "status-file", arg: "FILE", cat: catIO, usage: "write gpg's machine-readable status lines to FILE", set: setString(func(o *options) *string { return &o.statusFile })},
	{long: "logger-fd", arg: "N", cat: catDiag, usage: "write messages to file descriptor N instead of standard error", set: setInt("logger-fd", func(o *options) *int { return &o.loggerFd })},
	{long: "logger-file", arg: "FILE", cat: catDiag, usage: "append messages to FILE instead of standard error (- is standard error)", set: setString(func(o *options) *string { return &o.loggerFile })},
	{long: "log-file", alias: "logger-file", arg: "FILE", hidden: true},
	{long: "multifile", cat: catIO, usage: "with --encrypt, --decrypt or --verify: each FILE (or each line of standard input when none is given) is a message of its own; --encrypt writes FILE.gpg (.asc with --armor), --decrypt writes FILE without its .gpg, .pgp, .asc or .sig", set: setBool(func(o *options) *bool { return &o.multifile })},
	{long: "enable-special-filenames", cat: catIO, usage: "a file name -&N (an input, -o, -f, --verify's files) means file descriptor N, which the caller opened", set: setBool(func(o *options) *bool { return &o.specialFilenames })},

	// Diagnostics.
	{long: "disable-hwf", arg: "NAME", cat: catDiag, usage: "switch off a CPU feature for every engine (repeatable): " + strings.Join(hwf.Names(), ", "), set: addString(func(o *options) *[]string { return &o.disableHWF })},

	// gpg's options that change nothing in pgpstream. Each says why; this
	// is the list README's compatibility section is made from.
	{long: "allow-old-cipher-algos", kind: kNoop, usage: "gpg 2.4's leave to write 64-bit block ciphers (3DES, CAST5, Blowfish, IDEA); pgpstream writes only AES, and reads the old ciphers without it"},
	{long: "debug-set-iobuf-size", arg: "N", kind: kNoop, usage: "gpg 2.4's test knob for its buffer size; pgpstream's buffers are its own"},
	{long: "use-agent", kind: kNoop, usage: "obsolete in gpg 2.1 too"},
	{long: "no-use-agent", kind: kNoop, usage: "obsolete in gpg 2.1 too"},
	{long: "no-greeting", kind: kNoop, usage: "pgpstream prints no greeting"},
	{long: "no-secmem-warning", kind: kNoop, usage: "pgpstream prints no secure-memory warning"},
	{long: "no-mdc-warning", kind: kNoop, usage: "data without an MDC is refused outright (see --allow-unprotected)"},
	{long: "force-mdc", kind: kNoop, usage: "pgpstream always writes integrity-protected data (MDC or AEAD)"},
	{long: "always-trust", cat: catKeys, usage: "--trust-model always: encrypt to any key, whatever its validity", set: func(o *options, _ string) error { o.trustModel = "always"; return nil }},
	{long: "fixed-list-mode", kind: kNoop, usage: "the colon listing is always in fixed-list mode (as in gpg 2.2)"},
	{long: "with-fingerprint", cat: catKeys, usage: "list fingerprints in groups of four", set: setBool(func(o *options) *bool { return &o.listFingerprint })},
	{long: "with-subkey-fingerprint", cat: catKeys, usage: "list the subkeys' fingerprints too", set: setBool(func(o *options) *bool { return &o.withSubkeyFpr })},
	{long: "with-subkey-fingerprints", alias: "with-subkey-fingerprint", hidden: true},
	{long: "with-sig-list", cat: catKeys, usage: "a key listing shows the signatures on each user ID and subkey, as --list-sigs", set: setBool(func(o *options) *bool { return &o.listSigs })},
	{long: "with-sig-check", cat: catKeys, usage: "a key listing shows the signatures, each one checked, as --check-sigs", set: setBool(func(o *options) *bool { return &o.checkSigs })},
	{long: "with-key-origin", cat: catKeys, usage: "list where the ring has each key and user ID from, and when (see --key-origin)", set: setBool(func(o *options) *bool { return &o.withKeyOrigin })},
	{long: "with-keygrip", cat: catKeys, usage: "list each key's keygrip (gpg-agent's name for it)", set: setBool(func(o *options) *bool { return &o.withKeygrip })},
	{long: "import-options", arg: "OPTS", cat: catKeys, usage: "show-only: --import lists the keys instead of importing them; self-sigs-only: drop the certifications by other keys (always so for keys from the network); import-local-sigs: keep non-exportable ones", set: listOption(importOptionList, func(o *options) *importOpts { return &o.importOpts })},
	{long: "show-session-key", cat: catKeys, usage: "--decrypt and --list-packets print the session key as CIPHER:HEX (CIPHER.AEAD:HEX for AEAD data) on standard error and as SESSION_KEY on the status stream", set: setBool(func(o *options) *bool { return &o.showSessionKey })},
	{long: "override-session-key", arg: "KEY", cat: catKeys, usage: "decrypt with this session key (as --show-session-key prints it), opening no PKESK or SKESK", set: setString(func(o *options) *string { return &o.overrideSessionKey })},
	{long: "override-session-key-fd", arg: "N", cat: catKeys, usage: "--override-session-key with the key read as one line from file descriptor N", set: setInt("override-session-key-fd", func(o *options) *int { return &o.overrideSessionKeyFd })},
	{long: "faked-system-time", arg: "TIME", cat: catKeys, usage: "work at TIME (seconds since 1970, or YYYYMMDDTHHMMSS in UTC) for new signatures and keys and for expiry; with ! at the end the clock stands still there", set: func(o *options, v string) (err error) { o.fakedTime, err = parseFakedTime(v); return err }},
	{long: "json", cat: catKeys, usage: "--list-packets, --list-keys and --show-keys as JSON (see docs/INSPECT.md)", set: setBool(func(o *options) *bool { return &o.json })},
	{long: "with-tofu-info", cat: catKeys, usage: "under --trust-model tofu or tofu+pgp, a tfs record after each uid record of --with-colons: the binding's TOFU policy and history, as gpg writes it", set: setBool(func(o *options) *bool { return &o.withTOFUInfo })},
	{long: "tofu-default-policy", arg: "POLICY", cat: catKeys, usage: "what a TOFU binding whose policy is auto is worth: auto (marginal, the default), good (full), unknown, bad (never) or ask (undefined)", set: func(o *options, v string) error {
		p, err := tofu.ParsePolicy(v)
		if err != nil {
			return usagef("--tofu-default-policy: %v", err)
		}
		o.tofuDefault = p
		return nil
	}},
	{long: "tofu-db-format", arg: "FORMAT", kind: kNoop, usage: "obsolete in gpg too: the TOFU history is gpg's one format, tofu.db"},
	{long: "key-origin", arg: "ORIGIN[,URL]", cat: catKeys, usage: "where the keys --import reads come from (file, url, wkd, dane or ks; self, ks-pref and unknown record nothing), recorded with new keys and user IDs as gpg records it: fields 19 and 20 of --with-colons", set: setKeyOrigin},
	{long: "no-sk-comments", kind: kNoop, usage: "obsolete in gpg too"},
	{long: "enable-progress-filter", kind: kNoop, usage: "PROGRESS status lines come with --progress"},
	{long: "exit-on-status-write-error", kind: kNoop, usage: "pgpstream always fails when a status line or message could not be written"},
	{long: "utf8-strings", kind: kNoop, usage: "arguments are always taken as UTF-8"},
	{long: "no-utf8-strings", kind: kNoop, usage: "arguments are always taken as UTF-8"},
	{long: "openpgp", kind: kNoop, usage: "pgpstream writes only OpenPGP (RFC 4880/9580) as it is"},
	{long: "charset", arg: "NAME", kind: kNoop, usage: "messages are UTF-8"},
	{long: "display-charset", arg: "NAME", kind: kNoop, usage: "messages are UTF-8"},
	{long: "no-auto-check-trustdb", kind: kNoop, usage: "pgpstream keeps no trust database: validity is computed anew in each run"},
	{long: "no-auto-key-retrieve", kind: kNoop, usage: "pgpstream fetches keys only when a command or --auto-key-locate asks"},
	{long: "disable-dirmngr", kind: kNoop, usage: "pgpstream uses no dirmngr"},
	{long: "no-autostart", cat: catKeys, usage: "start no gpg-agent, neither for the passphrase cache and pinentry nor for a GnuPG home's secret keys (a running one is used)", set: noop},
	{long: "no-random-seed-file", kind: kNoop, usage: "pgpstream keeps no random seed file"},
	{long: "lock-never", kind: kNoop, usage: "pgpstream takes no lock on its ring"},
	{long: "lock-once", kind: kNoop, usage: "pgpstream takes no lock on its ring"},
	{long: "lock-multiple", kind: kNoop, usage: "pgpstream takes no lock on its ring"},
	{long: "request-origin", arg: "ORIGIN", kind: kNoop, usage: "tells gpg-agent who asks; pgpstream does not pass it on"},
	{long: "display", arg: "DISPLAY", kind: kNoop, usage: "for gpg-agent's pinentry; pgpstream tells the agent $GPG_TTY, $TERM and $DISPLAY instead"},
	{long: "ttyname", arg: "TTY", kind: kNoop, usage: "for gpg-agent's pinentry; pgpstream tells the agent $GPG_TTY, $TERM and $DISPLAY instead"},
	{long: "ttytype", arg: "TYPE", kind: kNoop, usage: "for gpg-agent's pinentry; pgpstream tells the agent $GPG_TTY, $TERM and $DISPLAY instead"},
	{long: "lc-ctype", arg: "LOCALE", kind: kNoop, usage: "for gpg-agent's pinentry; pgpstream tells the agent $GPG_TTY, $TERM and $DISPLAY instead"},
	{long: "lc-messages", arg: "LOCALE", kind: kNoop, usage: "for gpg-agent's pinentry; pgpstream tells the agent $GPG_TTY, $TERM and $DISPLAY instead"},
	{long: "xauthority", arg: "FILE", kind: kNoop, usage: "for gpg-agent's pinentry; pgpstream tells the agent $GPG_TTY, $TERM and $DISPLAY instead"},
	{long: "no-emit-version", kind: kNoop, usage: "armor carries no Version header anyway"},
	{long: "no-comments", kind: kNoop, usage: "armor carries no Comment header anyway"},
	{long: "list-options", arg: "LIST", kind: kNoop, usage: "accepted, its words checked as gpg checks them; listings have one format", set: listOption(listOptionList, func(o *options) *displayOpts { return &o.displayOpts })},
	{long: "verify-options", arg: "LIST", kind: kNoop, usage: "accepted, its words checked as gpg checks them; verification reports have one format", set: listOption(verifyOptionList, func(o *options) *displayOpts { return &o.displayOpts })},
	{long: "secret-keyring", arg: "FILE", kind: kNoop, usage: "obsolete in gpg 2.1 too: secret keys are where the home keeps them"},
	{long: "bzip2-decompress-lowmem", kind: kNoop, usage: "BZIP2 is always read with bounded memory"},
	{long: "gnupg", kind: kNoop, usage: "pgpstream behaves as GnuPG's default mode"},
	{long: "rfc4880", kind: kNoop, usage: "pgpstream writes RFC 4880 messages unless AEAD is asked for"},
	{long: "no-default-recipient-self", alias: "no-default-recipient", hidden: true},
	{long: "dry-run", cat: catKeys, usage: "with --import, read (and with --import-options import-show list) the keys without importing them; with --gen-key, make no key", set: setBool(func(o *options) *bool { return &o.dryRun })},
	{long: "debug-quick-random", kind: kNoop, usage: "gpg's test mode makes keys from weak randomness; pgpstream's keys always come from the system's random source"},
}

// gpgNames are the long options of gpg 2.2.40 (gpg --dump-options). A
// prefix is resolved against these as gpg does, so what is ambiguous for
// gpg is ambiguous here; one that pgpstream does not have is refused by
// name, distinct from a misspelling.
const gpgNames = `sign clear-sign clearsign detach-sign encrypt encrypt-files symmetric store decrypt decrypt-files
verify verify-files list-keys list-public-keys list-signatures list-sigs check-signatures check-sigs fingerprint
list-secret-keys generate-key gen-key quick-generate-key quick-gen-key quick-add-uid quick-adduid quick-add-key
quick-addkey quick-revoke-uid quick-revuid quick-set-expire quick-set-primary-uid full-generate-key full-gen-key
generate-revocation gen-revoke delete-keys delete-secret-keys quick-sign-key quick-lsign-key quick-revoke-sig
sign-key lsign-key edit-key key-edit change-passphrase passwd generate-designated-revocation desig-revoke export
send-keys receive-keys recv-keys search-keys refresh-keys locate-keys locate-external-keys fetch-keys show-keys
export-secret-keys export-secret-subkeys export-ssh-key import fast-import card-status edit-card card-edit
change-pin list-config list-gcrypt-config gpgconf-list gpgconf-test list-packets export-ownertrust
import-ownertrust update-trustdb check-trustdb fix-trustdb list-trustdb dearmor dearmour enarmor enarmour print-md
print-mds gen-prime gen-random server tofu-policy delete-secret-and-public-keys rebuild-keydb-caches list-key
list-sig check-sig show-key verbose no-verbose quiet no-tty no-greeting debug debug-level debug-all debug-iolbf
display-charset charset options no-options logger-fd log-file logger-file debug-quick-random homedir
faked-system-time default-key encrypt-to no-encrypt-to hidden-encrypt-to encrypt-to-default-key default-recipient
default-recipient-self no-default-recipient group ungroup no-groups compliance gnupg no-pgp2 no-pgp6 no-pgp7
no-pgp8 rfc2440 rfc4880 rfc4880bis openpgp pgp6 pgp7 pgp8 default-new-key-algo min-rsa-length always-trust
trust-model photo-viewer known-notation agent-program dirmngr-program exit-on-status-write-error
limit-card-insert-tries enable-progress-filter temp-directory exec-path expert no-expert no-secmem-warning
require-secmem no-require-secmem no-permission-warning dry-run interactive default-sig-expire ask-sig-expire
no-ask-sig-expire default-cert-expire ask-cert-expire no-ask-cert-expire default-cert-level min-cert-level
ask-cert-level no-ask-cert-level only-sign-text-ids enable-large-rsa disable-large-rsa enable-dsa2 disable-dsa2
personal-cipher-preferences personal-digest-preferences personal-compress-preferences default-preference-list
default-keyserver-url no-expensive-trust-checks allow-non-selfsigned-uid no-allow-non-selfsigned-uid
allow-freeform-uid no-allow-freeform-uid preserve-permissions default-cert-check-level tofu-default-policy
lock-once lock-multiple lock-never compress-algo compression-algo bzip2-decompress-lowmem completes-needed
marginals-needed max-cert-depth trustdb-name auto-check-trustdb no-auto-check-trustdb force-ownertrust multifile
input-size-hint utf8-strings no-utf8-strings set-filesize no-literal set-notation sig-notation cert-notation
set-policy-url sig-policy-url cert-policy-url sig-keyserver-url armor armour no-armor no-armour output max-output
comment default-comment no-comments emit-version no-emit-version no-version not-dash-escaped escape-from-lines
no-escape-from-lines mimemode textmode no-textmode set-filename for-your-eyes-only no-for-your-eyes-only
show-notation no-show-notation show-session-key use-embedded-filename no-use-embedded-filename unwrap
mangle-dos-filenames no-mangle-dos-filenames no-symkey-cache skip-verify list-only compress-level
bzip2-compress-level disable-signer-uid auto-key-locate no-auto-key-locate auto-key-import no-auto-key-import
auto-key-retrieve no-auto-key-retrieve include-key-block no-include-key-block disable-dirmngr keyserver
keyserver-options key-origin import-options import-filter export-options export-filter merge-only
allow-secret-key-import list-options show-photos no-show-photos show-policy-url no-show-policy-url with-colons
with-tofu-info with-key-data with-sig-list with-sig-check with-fingerprint with-subkey-fingerprint
with-subkey-fingerprints with-icao-spelling with-keygrip with-secret with-wkd-hash with-key-origin fast-list-mode
fixed-list-mode legacy-list-mode print-pka-records print-dane-records keyid-format show-keyring recipient
hidden-recipient recipient-file hidden-recipient-file remote-user throw-keyids no-throw-keyids local-user
trusted-key sender try-secret-key try-all-secrets no-default-keyring no-keyring keyring primary-keyring
secret-keyring skip-hidden-recipients no-skip-hidden-recipients override-session-key override-session-key-fd
s2k-mode s2k-digest-algo s2k-cipher-algo s2k-count require-backsigs require-cross-certification
no-require-backsigs no-require-cross-certification verify-options enable-special-filenames no-random-seed-file
no-sig-cache ignore-time-conflict ignore-valid-from ignore-crc-error ignore-mdc-error disable-cipher-algo
disable-pubkey-algo cipher-algo digest-algo cert-digest-algo override-compliance-check allow-weak-key-signatures
allow-weak-digest-algos weak-digest allow-multisig-verification allow-multiple-messages no-allow-multiple-messages
batch no-batch yes no status-fd status-file attribute-fd attribute-file command-fd command-file passphrase
passphrase-fd passphrase-file passphrase-repeat pinentry-mode force-sign-key request-origin display ttyname
ttytype lc-ctype lc-messages xauthority no-autostart forbid-gen-key require-compliance use-only-openpgp-card
rfc2440-text no-rfc2440-text personal-cipher-prefs personal-digest-prefs personal-compress-prefs sign-with user
use-agent no-use-agent gpg-agent-info reader-port ctapi-driver pcsc-driver disable-ccid honor-http-proxy
tofu-db-format strict no-strict load-extension sk-comments no-sk-comments compress-keys compress-sigs
force-v3-sigs no-force-v3-sigs force-v4-certs no-force-v4-certs no-mdc-warning force-mdc no-force-mdc disable-mdc
no-disable-mdc help version warranty dump-option-table dump-options`

// gpgShortArg are gpg's short options that take an argument (they end a
// bundle: -bsau KEY, -uKEY), and gpgShort all of gpg's short options.
const (
	gpgShortArg = "fFNoruRz"
	gpgShort    = "abcdefFhiknNoqrRstuvzK?"
)

var (
	byLong  map[string]*optDef
	byShort map[byte]*optDef
	// argGrammar is gpg's argument and gpg.conf grammar over optionTable:
	// its tokens index the table.
	argGrammar *gpgargs.Grammar
)

func init() {
	byLong = map[string]*optDef{}
	byShort = map[byte]*optDef{}
	specs := make([]gpgargs.Spec, len(optionTable))
	for i := range optionTable {
		d := &optionTable[i]
		byLong[d.long] = d
		specs[i] = gpgargs.Spec{Long: d.long, Short: d.short, Arg: d.arg, Command: d.kind == kCommand, Alias: d.alias,
			Early: d.long == "homedir" || d.long == "options" || d.long == "no-options"}
	}
	argGrammar = gpgargs.New(specs, strings.Fields(gpgNames), gpgShort)
	for i := range optionTable {
		d := &optionTable[i]
		if d.alias != "" {
			t := byLong[d.alias]
			d.set, d.kind, d.cat, d.hidden, d.cmd = nil, t.kind, t.cat, true, t.cmd
		}
		if d.short != 0 {
			byShort[d.short] = d
		}
		if d.kind == kCommand && d.set == nil && d.alias == "" {
			if d.cmd == commandNone || d.cmd >= numCommands || commandNames[d.cmd] != "" {
				panic("command entry --" + d.long + " needs a constant of its own")
			}
			commandNames[d.cmd] = d.long
			d.set = giveCommand(d.cmd)
		}
	}
}

// canonical follows an alias to the entry that acts.
func canonical(d *optDef) *optDef {
	if d != nil && d.alias != "" {
		return byLong[d.alias]
	}
	return d
}

// lookupLong finds a long option by its name or a unique prefix of it,
// as gpg does. A gpg option pgpstream lacks gives a not-supported error.
func lookupLong(name string) (*optDef, error) {
	i, err := argGrammar.Lookup(name)
	if err != nil {
		return nil, argError(err)
	}
	return &optionTable[i], nil
}

// argError is the usage error for the grammar's, with the hint that
// helps.
func argError(err error) error {
	var e *gpgargs.Error
	if !errors.As(err, &e) {
		return err
	}
	switch e.Kind {
	case gpgargs.Unknown:
		return usageError{msg: e.Msg, hints: []string{"see pgpstream --help"}}
	case gpgargs.NotSupported:
		return notSupported(e.Name)
	}
	return usagef("%s", e.Msg)
}

func notSupported(name string) error {
	return usageError{msg: name + " is not supported", hints: []string{"pgpstream --help lists what it does; README's gpg compatibility section lists gpg's options it accepts"}}
}

// token is one option as given, with its value.
type token struct {
	def   *optDef
	value string
	name  string // as written, for messages
	where string // "FILE:LINE" for gpg.conf, "" for the command line
}

func tokens(ts []gpgargs.Token) []token {
	out := make([]token, len(ts))
	for i, t := range ts {
		out[i] = token{def: &optionTable[t.Opt], value: t.Value, name: t.Name, where: t.Where}
	}
	return out
}

// scanArgs splits argv (without argv[0]) into options and arguments by
// gpg's grammar.
func scanArgs(argv []string) (toks []token, args []string, notes []string, err error) {
	ts, args, notes, err := argGrammar.Scan(argv)
	if err != nil {
		return nil, nil, nil, argError(err)
	}
	return tokens(ts), args, notes, nil
}

// parseOptions builds the options of one invocation: argv is scanned,
// gpg.conf (from the home argv names, or --options FILE) is read, its
// options applied first and argv's over them, and check decides every
// rule.
func parseOptions(argv []string) (*options, error) {
	o := &options{level: -1, passphraseFd: -1, commandFd: -1, overrideSessionKeyFd: -1, statusFd: -1, loggerFd: -1, chunkSize: 22, keyVersion: 4,
		cipherName: "AES256", compressName: "none", aeadName: "OCB", profiles: map[string]string{}, seen: map[string]bool{}}
	toks, args, notes, err := scanArgs(argv)
	if err != nil {
		return nil, err
	}
	o.notes = notes
	// --homedir, --options and --no-options are needed before gpg.conf
	// is read, so they are taken from the command line first, as gpg does.
	for _, t := range toks {
		switch t.def.long {
		case "homedir":
			o.homedir = t.value
		case "options":
			o.optionsFile = t.value
		case "no-options":
			o.noOptions = true
		}
	}
	o.home, o.homeFrom = resolveHome(o.homedir)
	if !o.noOptions {
		conf, warnings, err := readConf(o)
		if err != nil {
			return nil, err
		}
		o.confWarnings = warnings
		toks = append(conf, toks...)
	}
	for _, t := range toks {
		o.seen[t.def.long] = true
		if t.def.set != nil {
			if err := t.def.set(o, t.value); err != nil {
				if t.where != "" {
					return nil, fmt.Errorf("%s: %w", t.where, err)
				}
				return nil, err
			}
		}
	}
	o.args = args
	if err := o.check(); err != nil {
		return nil, err
	}
	return o, nil
}

// profileOptions are the profiling hooks, options like the others.
func profileOptions() []optDef {
	var out []optDef
	for _, p := range profileFlags {
		flag := p.flag
		out = append(out, optDef{long: flag, arg: "FILE", cat: catDiag, usage: p.usage,
			set: func(o *options, v string) error { o.profiles[flag] = v; return nil }})
	}
	return out
}

// resolveHome decides the home directory: --homedir, else
// $PGPSTREAM_HOME, else $GNUPGHOME, else ~/.gnupg when it exists, else
// ~/.pgpstream. gpg's order is --homedir, $GNUPGHOME, ~/.gnupg;
// pgpstream puts its own variable first, since only someone who means
// pgpstream's keys sets it. A gpg user's existing ~/.gnupg is where their
// keys are, and pgpstream reads it as it is (keyring/gnupg.go) and never
// writes gpg's files there; with none, pgpstream does not make one, and
// keeps its keys in ~/.pgpstream.
func resolveHome(flag string) (home, from string) {
	switch {
	case flag != "":
		return flag, "--homedir"
	case os.Getenv("PGPSTREAM_HOME") != "":
		return os.Getenv("PGPSTREAM_HOME"), "PGPSTREAM_HOME"
	case os.Getenv("GNUPGHOME") != "":
		return os.Getenv("GNUPGHOME"), "GNUPGHOME"
	}
	if u, err := os.UserHomeDir(); err == nil {
		g := filepath.Join(u, ".gnupg")
		if fi, err := os.Stat(g); err == nil && fi.IsDir() {
			return g, "~/.gnupg, which exists"
		}
	}
	return keyring.DefaultHome(), "default"
}

// readConf reads gpg.conf: HOME/gpg.conf, or --options FILE (which must
// exist), by gpg's grammar (internal/gpgargs): an unknown or unsupported
// option is a warning naming FILE:LINE, as in gpg, and the line is
// skipped: gpg.conf is shared with gpg.
func readConf(o *options) ([]token, []string, error) {
	path := o.optionsFile
	if path == "" {
		path = filepath.Join(o.home, "gpg.conf")
	}
	b, err := bounded.ReadFile(path, bounded.Config)
	if err != nil {
		if o.optionsFile == "" && errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("reading options: %w", err)
	}
	ts, warnings := argGrammar.Conf(path, string(b))
	return tokens(ts), warnings, nil
}

// commandPairs are gpg's legal combinations of two commands (gpg.c,
// set_cmd): signing rides along with encryption, -b with -s is a
// detached signature, -s with --clear-sign a cleartext signature, and -b
// with encryption signs inside it.
func combineCommands(cmds []command) (command, error) {
	var uniq []command
	seen := map[command]bool{}
	for _, c := range cmds {
		if (c == commandFingerprint || c == commandListSigs || c == commandCheckSigs) && len(cmds) > 1 {
			// gpg's --fingerprint, --list-sigs and --check-sigs are
			// commands only when alone; beside another listing they say
			// what it shows (see check).
			continue
		}
		if !seen[c] {
			seen[c] = true
			uniq = append(uniq, c)
		}
	}
	if len(uniq) <= 1 {
		if len(uniq) == 0 {
			if len(cmds) > 0 {
				return commandListKeys, nil // only listing modifiers: --fingerprint --check-sigs
			}
			return commandNone, nil
		}
		return uniq[0], nil
	}
	enc := seen[commandEncrypt] || seen[commandSymmetric]
	rest := 0
	for _, c := range uniq {
		switch c {
		case commandEncrypt, commandSymmetric, commandSign, commandDetachSign:
		default:
			rest++
		}
	}
	switch {
	case rest == 0 && enc:
		return commandEncrypt, nil
	case rest == 0 && seen[commandSign] && seen[commandDetachSign]:
		return commandDetachSign, nil
	case len(uniq) == 2 && seen[commandSign] && seen[commandClearSign]:
		// python-gnupg clear-signs with --sign --clearsign.
		return commandClearSign, nil
	}
	names := make([]string, len(uniq))
	for i, c := range uniq {
		names[i] = c.String()
	}
	return commandNone, usagef("conflicting commands: --%s", strings.Join(names, " and --"))
}

// check holds every rule about the options alone, and their one
// message each: ranges, algorithm names, combinations, and gpg.conf's
// defaults. Commands trust what it leaves.
func (o *options) check() (err error) {
	if o.cmd, err = combineCommands(o.commands); err != nil {
		return err
	}
	for _, c := range o.commands {
		switch c {
		case commandEncrypt:
			o.encrypt = true
		case commandSymmetric:
			o.symmetric = true
		case commandSign, commandDetachSign:
			o.sign = true
		}
	}
	for _, c := range o.commands {
		switch c {
		case commandFingerprint:
			o.listFingerprint = true
		case commandListSigs:
			o.listSigs = true
		case commandCheckSigs:
			o.checkSigs = true
		}
	}
	switch o.cmd {
	case commandFingerprint, commandListSigs, commandCheckSigs:
		o.cmd = commandListKeys
	case commandSymmetric:
		o.cmd = commandEncrypt // one command writes both (cmdEncrypt)
	}
	if o.cmd == commandNone && len(o.args) > 0 {
		o.cmd = commandDecrypt // gpg decrypts when given only a file
	}

	// Special file names: -&N is descriptor N (fds.go). File arguments
	// and -f are read where they are opened (openArg).
	o.output = o.fileArg(o.outputName)

	// Algorithms.
	if o.cipher, err = packet.ParseCipherAlgo(o.cipherName); err != nil {
		return usagef("--cipher-algo: %v", err)
	}
	if !o.cipher.IsAES() {
		return usagef("--cipher-algo: pgpstream writes AES128, AES192 or AES256, not %v", o.cipher)
	}
	if !o.given("cipher-algo") {
		for _, name := range o.personalCipher {
			if c, err := packet.ParseCipherAlgo(name); err == nil && c.IsAES() {
				o.cipher = c
				break
			} else if err != nil {
				return usagef("--personal-cipher-preferences: %v", err)
			}
		}
	}
	if o.compress, err = packet.ParseCompressionAlgo(o.compressName); err != nil {
		return usagef("--compress-algo: %v", err)
	}
	if o.given("compress-level") && (o.level < 0 || o.level > 9) {
		return usageError{msg: fmt.Sprintf("-z %d: the compression level must be 0 (none) to 9", o.level), hints: []string{"-z 1 is fastest, -z 9 smallest; --compress-algo zip|zlib|bzip2 picks the algorithm"}}
	}
	switch {
	case o.level == 0:
		o.compress = packet.CompressNone
	case o.level > 0 && o.compress == packet.CompressNone && !o.given("compress-algo"):
		o.compress = packet.CompressZLIB
		for _, name := range o.personalCompress {
			c, err := packet.ParseCompressionAlgo(name)
			if err != nil {
				return usagef("--personal-compress-preferences: %v", err)
			}
			if c != packet.CompressNone {
				o.compress = c
				break
			}
		}
	}
	if o.given("bzip2-compress-level") {
		if o.bzip2Level < 1 || o.bzip2Level > 9 {
			return usagef("--bzip2-compress-level %d: the BZIP2 level must be 1 to 9", o.bzip2Level)
		}
		if o.compress == packet.CompressBZIP2 {
			o.level = o.bzip2Level
		}
	}
	if o.digestName != "" {
		if o.digest, err = packet.ParseHashAlgo(o.digestName); err != nil {
			return usagef("--digest-algo: %v", err)
		}
		if o.digest == packet.HashRIPEMD160 {
			return usagef("--digest-algo: pgpstream does not sign with RIPEMD160; use SHA256, SHA384, SHA512, SHA224 or SHA1")
		}
		if o.digest == packet.HashSHA1 && !o.allowWeakDigests && o.signing() {
			// RFC 9580 §9.5: no new SHA-1 signatures. Verifiers
			// (pgpstream, Sequoia) refuse them.
			return usageError{msg: "--digest-algo SHA1: SHA-1 signatures are refused by verifiers (pgpstream among them) for data signed after 2013", hints: []string{"use SHA256, or add --allow-weak-digest-algos to make one anyway"}}
		}
		o.digestSet = true
	} else {
		for _, name := range o.personalDigest {
			h, err := packet.ParseHashAlgo(name)
			if err != nil {
				return usagef("--personal-digest-preferences: %v", err)
			}
			if h != packet.HashRIPEMD160 && (h != packet.HashSHA1 || o.allowWeakDigests) {
				o.digest = h
				break
			}
		}
	}
	if o.aead, err = packet.ParseAEADAlgo(o.aeadName); err != nil {
		return usagef("--aead-algo: %v", err)
	}
	o.aeadSet, o.chunkSet = o.given("aead-algo"), o.given("chunk-size")
	// gpg takes any --s2k-count and clamps it to what the one-octet
	// count can say.
	if o.s2kCount != 0 {
		o.s2kCount = min(max(o.s2kCount, 1024), 65011712)
	}
	if o.chunkSize < 6 || o.chunkSize > 22 {
		return usageError{msg: fmt.Sprintf("--chunk-size %d: must be 6 (64 bytes) to 22 (4 MiB)", o.chunkSize), hints: []string{"the size is gpg's exponent: --chunk-size N means 2^N-byte chunks"}}
	}
	if o.threads < 0 {
		return usagef("--threads must be 0 (one per CPU) or more")
	}
	// --compliance (gpgconf sets it in gpg.conf): the modes that name
	// what pgpstream writes anyway are accepted; those that restrict
	// algorithms to another program's (pgp6, pgp7, pgp8) or to a
	// government's approval (de-vs) are refused rather than ignored.
	switch strings.ToLower(o.compliance) {
	case "", "gnupg", "openpgp", "rfc4880", "rfc2440":
	case "rfc4880bis":
		o.rfc4880bis = o.rfc4880bis || o.forceAEAD
	case "pgp6", "pgp7", "pgp8", "de-vs":
		return usagef("--compliance %s is not supported: pgpstream does not restrict its algorithms to that mode's", o.compliance)
	default:
		return usagef("--compliance %s: want one of gnupg, openpgp, rfc4880, rfc2440, rfc4880bis", o.compliance)
	}
	if o.rfc4880bis && o.forceSEIPDv2 && o.cmd == commandEncrypt {
		return usagef("conflicting options: --force-seipdv2 writes RFC 9580 SEIPD v2, --rfc4880bis the LibrePGP AEAD packet")
	}
	if o.rfc4880bis && !o.forceAEAD && (o.cmd == commandEncrypt) {
		return usageError{msg: "--rfc4880bis without --force-aead", hints: []string{"add --force-aead (or --force-ocb) to write the LibrePGP AEAD packet"}}
	}
	if o.keyVersion != 4 && o.keyVersion != 6 {
		return usagef("--key-version must be 4 or 6")
	}
	if o.maxOutput < 0 {
		return usagef("--max-output must be 0 (no limit) or more")
	}

	// Descriptors and files.
	n := 0
	for _, set := range []bool{o.passphraseSet, o.passphraseFile != "", o.passphraseFd >= 0} {
		if set {
			n++
		}
	}
	if n > 1 {
		return usagef("give only one of --passphrase, --passphrase-file and --passphrase-fd")
	}
	if o.overrideSessionKey != "" {
		if o.overrideSessionKeyFd >= 0 {
			return usagef("give --override-session-key or --override-session-key-fd, not both")
		}
		if _, err := parseSessionKey(o.overrideSessionKey); err != nil {
			return err
		}
	}
	switch {
	case o.statusFd >= 0 && o.statusFile != "":
		return usagef("give --status-fd or --status-file, not both")
	case o.statusFd == 0:
		return usagef("--status-fd 0 is standard input")
	case o.loggerFd >= 0 && o.loggerFile != "":
		return usagef("give --logger-fd or --logger-file, not both")
	case o.loggerFd == 0:
		return usagef("--logger-fd 0 is standard input")
	case o.commandFd >= 0 && o.commandFile != "":
		return usagef("give --command-fd or --command-file, not both")
	}
	if o.progress && o.noProgress {
		return usagef("give --progress or --no-progress, not both")
	}

	// Keyrings are read, never written (see openRing); gpg 2.2 keeps
	// secret keys in its agent, so --secret-keyring names nothing.
	if o.noKeyring {
		o.keyrings = nil
	}
	o.dropHomeKeyrings()
	if o.dryRun && o.cmd != commandImport && o.cmd != commandGenKey {
		return usagef("--dry-run is supported with --import and --gen-key only")
	}
	if len(o.keyrings) > 0 || o.noDefaultRing {
		name := "--keyring"
		if len(o.keyrings) == 0 {
			name = "--no-default-keyring"
		}
		switch o.cmd {
		case commandImport, commandQuickGenKey, commandDeleteKeys, commandDeleteSecretAndPublicKey,
			commandQuickSetExpire, commandQuickAddKey, commandQuickAddUID, commandQuickRevokeUID, commandPasswd,
			commandEditKey, commandSignKey, commandLsignKey, commandQuickSignKey, commandQuickLsignKey:
			return usageError{msg: name + " is not supported with --" + o.cmd.String() + ": pgpstream changes only its home's ring", hints: []string{"point --homedir at the ring to change"}}
		}
	}
	for _, name := range o.weakNames {
		h, err := packet.ParseHashAlgo(name)
		if err != nil {
			return usagef("--weak-digest: %v", err)
		}
		if o.weakDigests == nil {
			o.weakDigests = map[packet.HashAlgo]bool{}
		}
		o.weakDigests[h] = true
	}

	// Who signs: -u, else --default-key.
	if len(o.localUsers) == 0 && o.defaultKey != "" {
		o.localUsers = []string{o.defaultKey}
	}

	// --encrypt-to-default-key: --default-key is an --encrypt-to too.
	if o.encryptToDefault {
		if o.defaultKey != "" {
			o.encryptTo = append(o.encryptTo, o.defaultKey)
		} else if o.encrypt {
			o.confWarnings = append(o.confWarnings, "option '--encrypt-to-default-key' given, but option '--default-key' not given")
		}
	}

	// Recipients: gpg.conf's defaults apply when none is named.
	if o.noEncryptTo {
		o.encryptTo, o.hiddenEncryptTo = nil, nil
	}
	if o.noDefaultRecipient {
		o.defaultRecipient, o.recipientSelf = "", false
	}
	o.recipients, o.hiddenRecipients = o.expandGroups(o.recipients), o.expandGroups(o.hiddenRecipients)
	o.encryptTo, o.hiddenEncryptTo = o.expandGroups(o.encryptTo), o.expandGroups(o.hiddenEncryptTo)
	named := len(o.recipients)+len(o.hiddenRecipients)+len(o.recipientFiles)+len(o.hiddenRecipientFiles) > 0
	if o.encrypt && !named {
		switch {
		case o.defaultRecipient != "":
			o.recipients = o.expandGroups([]string{o.defaultRecipient})
			o.recipientsByDefault = true
		case o.recipientSelf:
		default:
			return usageError{msg: "--encrypt needs at least one recipient", hints: []string{"name one with --recipient KEY or --recipient-file FILE, or use --symmetric"}}
		}
	} else {
		o.recipientSelf = false
	}
	if named && !o.encrypt && (o.cmd == commandEncrypt || o.cmd == commandSign || o.cmd == commandDetachSign || o.cmd == commandClearSign || o.cmd == commandStore) {
		// As gpg: recipients a command does not encrypt to are
		// ignored, with a warning (-q silences it). Nothing is
		// encrypted to them, so nothing they would need is lost.
		o.confWarnings = append(o.confWarnings, "recipients (-r) given without using public key encryption")
		o.recipients, o.hiddenRecipients, o.recipientFiles, o.hiddenRecipientFiles = nil, nil, nil, nil
	}
	if o.throwKeyIDs {
		o.hiddenRecipients = append(o.hiddenRecipients, o.recipients...)
		o.hiddenRecipientFiles = append(o.hiddenRecipientFiles, o.recipientFiles...)
		o.hiddenEncryptTo = append(o.hiddenEncryptTo, o.encryptTo...)
		o.recipients, o.recipientFiles, o.encryptTo = nil, nil, nil
	}

	// Commands that need more than a flag.
	switch o.cmd {
	case commandDeleteKeys, commandDeleteSecretKeys, commandDeleteSecretAndPublicKey:
		// Keys are named by full fingerprint, for which gpg deletes
		// under --batch without --yes; pgpstream asks no questions, so
		// it needs --batch to say none will be asked.
		if !o.batch {
			return usageError{msg: "deleting keys needs --batch", hints: []string{"pgpstream --batch --" + o.cmd.String() + " FINGERPRINT"}}
		}
	}
	return nil
}

// group is gpg's --group NAME=KEYS.
type group struct {
	name    string
	members []string // as gpg keeps them: the last one given first
}

// addGroup takes "NAME=KEY KEY..." (spaces around = allowed, as in
// gpg.conf); a NAME given again gains the new KEYS.
func addGroup(o *options, v string) error {
	name, keys, ok := strings.Cut(v, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return usagef("--group %q: want NAME=KEY...", v)
	}
	var members []string
	for _, k := range strings.Fields(keys) {
		members = append([]string{k}, members...)
	}
	for i := range o.groups {
		if o.groups[i].name == name {
			// gpg keeps the group where it was and puts the new keys first.
			o.groups[i].members = append(members, o.groups[i].members...)
			return nil
		}
	}
	o.groups = append([]group{{name, members}}, o.groups...)
	return nil
}

func dropGroup(gs []group, name string) []group {
	var out []group
	for _, g := range gs {
		if g.name != name {
			out = append(out, g)
		}
	}
	return out
}

// expandGroups replaces each spec that names a group by its members
// (one level, as gpg does).
func (o *options) expandGroups(specs []string) []string {
	if len(o.groups) == 0 {
		return specs
	}
	var out []string
	for _, s := range specs {
		found := false
		for _, g := range o.groups {
			if g.name == s {
				out, found = append(out, g.members...), true
				break
			}
		}
		if !found {
			out = append(out, s)
		}
	}
	return out
}

// dropHomeKeyrings takes out of --keyring the home's own public ring
// (pubring.kbx or pubring.gpg, which gpg makes there; pubring.pgp,
// pgpstream's): "--no-default-keyring --keyring HOME/pubring.kbx" is how
// python-gnupg and others name the default ring, and means the home's
// keys, read and written as without the options.
func (o *options) dropHomeKeyrings() {
	var kept []string
	for _, file := range o.keyrings {
		if !strings.ContainsRune(file, '/') {
			file = filepath.Join(o.home, file)
		}
		dir, name := filepath.Split(file)
		same := false
		if a, err := filepath.Abs(dir); err == nil {
			if b, err := filepath.Abs(o.home); err == nil {
				same = a == b
			}
		}
		if same && (name == "pubring.kbx" || name == "pubring.gpg" || name == "pubring.pgp") {
			o.noDefaultRing = false
			continue
		}
		kept = append(kept, file)
	}
	o.keyrings = kept
}
