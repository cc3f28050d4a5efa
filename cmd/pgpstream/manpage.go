package main

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
)

// The manual page, pgpstream(1), in man(7) macros. The commands and
// options are the option table's (the same sections as --help), the
// status lines those of package status; the prose around them is here.

// docOptions are the commands that write the manual and the shell
// completions.
var docOptions = []optDef{
	{long: "print-manpage", kind: kCommand, cmd: commandPrintManpage, cat: catCommand, usage: "write the manual, pgpstream(1), in man(7) format: pgpstream --print-manpage | man -l -"},
	{long: "print-completion", kind: kCommand, cmd: commandPrintCompletion, cat: catCommand, usage: "SHELL: write the completion script for bash, zsh or fish (bash: source <(pgpstream --print-completion bash))"},
}

// cmdPrintManpage is --print-manpage.
func cmdPrintManpage(st *state) error {
	_, err := io.WriteString(st.stdout, manpage())
	return err
}

// manpage renders the whole manual.
func manpage() string {
	r := &roff{}
	r.line(`.\" pgpstream(1), written by pgpstream --print-manpage from its option table.`)
	r.macro("TH", "PGPSTREAM", "1", buildDate(), "pgpstream "+version, "User Commands")
	r.line(".nh") // option names must not be hyphenated where a line breaks
	r.macro("SH", "NAME")
	r.line(`pgpstream \-`)
	r.fill(summary)
	manSynopsis(r)
	manDescription(r)
	manCommands(r)
	manOptions(r)
	manUserIDs(r)
	manExamples(r)
	manFiles(r)
	manEnvironment(r)
	manExitStatus(r)
	manStatusLines(r)
	manSafety(r)
	manDifferences(r)
	r.macro("SH", "SEE ALSO")
	r.line(`\fBgpg\fR(1), \fBgpg\-agent\fR(1), \fBgpgconf\fR(1); README.md, docs/INSPECT.md and docs/ARCHITECTURE.md in pgpstream's source.`)
	return r.b.String()
}

// releaseDate is the day of the commit a release was built from, set
// with -ldflags "-X main.releaseDate=YYYY-MM-DD" (make dist, make
// install).
var releaseDate string

// buildDate is the manual's date: the day SOURCE_DATE_EPOCH names, as
// reproducible builds set it, else releaseDate, else the day of the
// commit the binary was built from (Go stamps it with the VCS details),
// so that one commit makes one manual; "" when none is known.
func buildDate() string {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0).UTC().Format(time.DateOnly)
		}
	}
	if releaseDate != "" {
		return releaseDate
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.time" && len(s.Value) >= 10 {
			return s.Value[:10]
		}
	}
	return ""
}

func manSynopsis(r *roff) {
	r.macro("SH", "SYNOPSIS")
	for _, s := range synopsis {
		r.macro("SY", "pgpstream")
		r.fill(s)
		r.line(".YS")
	}
	r.line(".nh") // .YS turns hyphenation back on
}

func manDescription(r *roff) {
	r.macro("SH", "DESCRIPTION")
	r.para("pgpstream encrypts, decrypts, signs and verifies OpenPGP messages (RFC 4880, RFC 9580 and LibrePGP) " +
		"and manages keys with gpg's command line: the same options, the same grammar, the same status lines " +
		"(--status-fd) and colon listings (--with-colons), so that programs which call gpg can call it instead. " +
		"Its data path streams: it moves data in bulk through one buffered chain of filters and writes nothing " +
		"unauthenticated to an --output file.")
	r.para(grammar + " A lone FILE is decrypted, as gpg decrypts it. " +
		"Installed under the name gpg, its messages begin with \"gpg:\", as the lines clients look for do.")
}

func manCommands(r *roff) {
	r.macro("SH", "COMMANDS")
	r.para("A command is an option that says what to do; at most one is given, except that " +
		"--sign combines with --encrypt and --symmetric (-se, -sc, -sec), " +
		"--detach-sign with --sign, and --fingerprint, --list-sigs and --check-sigs " +
		"with a listing, as in gpg.")
	for _, s := range sections(true) {
		if s.title == "Commands" {
			manEntries(r, s.opts)
		}
	}
	r.macro("SS", "Commands of pgpstream's own")
	r.para("These are words, not options: they come after the options, where a file name would.")
	for _, c := range appCommands(nil) {
		tag := `\fB` + esc(c.Name) + `\fR`
		if c.ArgsUsage != "" {
			tag += " " + esc(c.ArgsUsage)
		}
		body := c.Usage + "."
		if c.Description != "" {
			body += " " + strings.Join(strings.Fields(c.Description), " ")
		}
		r.tp(tag, body)
		manFlags(r, c.Flags)
	}
}

// manFlags lists a subcommand's flags, indented under its entry.
func manFlags(r *roff, flags []cli.Flag) {
	if len(flags) == 0 {
		return
	}
	r.line(".RS")
	for _, f := range flags {
		if line := flagLine(f); line != "" {
			name, usage, _ := strings.Cut(line, "\t")
			r.tp(`\fB`+esc(name)+`\fR`, usage+".")
		}
	}
	r.line(".RE")
}

func manOptions(r *roff) {
	r.macro("SH", "OPTIONS")
	r.para("Every long option may also stand in gpg.conf, without its dashes, with its value after white space. " +
		"gpg's options that pgpstream does not have are errors naming them; a misspelling is an unknown option.")
	for _, s := range sections(true) {
		if s.title == "Commands" {
			continue
		}
		r.macro("SS", s.title)
		if s.title == noopTitle {
			r.para("gpg's clients pass these; each is accepted and changes nothing, for the reason given.")
		}
		manEntries(r, s.opts)
	}
}

// manEntries is one .TP per option: its names, its text, its other
// spellings.
func manEntries(r *roff, opts []*optDef) {
	for _, d := range opts {
		tag := ""
		if d.short != 0 {
			tag = fmt.Sprintf(`\fB\-%s\fR, `, esc(string(d.short)))
		}
		tag += `\fB` + esc("--"+d.long) + `\fR`
		if d.arg != "" {
			tag += ` \fI` + esc(d.arg) + `\fR`
		}
		body := d.usage
		if d.kind == kNoop {
			body = "Accepted; changes nothing: " + body
		}
		if !strings.HasSuffix(body, ".") {
			body += "."
		}
		if as := aliasesOf(d); len(as) > 0 {
			body += " Also spelled " + strings.Join(as, ", ") + "."
		}
		r.tp(tag, body)
	}
}

func manUserIDs(r *roff) {
	r.macro("SH", "HOW TO SPECIFY A USER ID")
	r.para("-r, -u, --export and the listings name keys as gpg does; -r and -u name one key each, " +
		"and a pattern that matches several usable keys is refused, with their fingerprints.")
	for _, e := range [][2]string{
		{"FINGERPRINT, KEYID, 0xKEYID", "the key with that fingerprint or key ID (a subkey's too)"},
		{"<alice@example.org> or alice@example.org", "a user ID with exactly that address (the first <...> of the user ID), in any case"},
		{"@example.org", "a user ID whose address holds the text"},
		{"=Alice <alice@example.org>", "exactly that user ID"},
		{"alice", "a user ID that holds the text, in any case"},
	} {
		r.tp(`\fB`+esc(e[0])+`\fR`, e[1]+".")
	}
	r.para("Only user IDs the key itself signed are matched or shown.")
}

func manExamples(r *roff) {
	r.macro("SH", "EXAMPLES")
	for _, e := range [][2]string{
		{"pgpstream --quick-gen-key 'Alice <alice@example.org>'", "make an ed25519 key with a cv25519 subkey"},
		{"pgpstream -e -r alice@example.org -o report.pdf.pgp report.pdf", "encrypt a file to Alice's key"},
		{"pgpstream -d -o report.pdf report.pdf.pgp", "decrypt it; the output gets its name only once all of it authenticated"},
		{"pgpstream -c --force-aead -o notes.pgp notes.txt", "encrypt with a passphrase, in AEAD chunks"},
		{"pgpstream -sb -a -u alice file", "make an armored detached signature, file.asc"},
		{"pgpstream --verify file.asc file", "check it"},
		{"pgpstream inspect msg.pgp", "who can decrypt msg.pgp, without decrypting it"},
		{"source <(pgpstream --print-completion bash)", "complete pgpstream's options in bash"},
	} {
		r.tp(`\fB`+esc(e[0])+`\fR`, e[1]+".")
	}
}

func manFiles(r *roff) {
	r.macro("SH", "FILES")
	r.para("The home is --homedir DIR, else $PGPSTREAM_HOME, else $GNUPGHOME, else ~/.gnupg when it exists, else ~/.pgpstream " +
		"(made with mode 0700). In it:")
	for _, f := range [][2]string{
		{"gpg.conf", "options read before the command line's (--options FILE instead, none with --no-options)"},
		{"pubring.pgp", "the public keys, as OpenPGP packets"},
		{"secring.pgp", "the secret keys (mode 0600)"},
		{"ownertrust.txt", "owner trust, as --import-ownertrust sets it"},
		{"tofu.db", "the TOFU history (--trust-model tofu, tofu+pgp), gpg's own SQLite file; in a GnuPG home gpg's, shared with it"},
		{"pgpstream.lock", "the lock writers take (flock(2)); never stale"},
		{"FILE.damaged", "a damaged ring, kept when --yes lets a change write it anew"},
	} {
		r.tp(`\fI`+esc(f[0])+`\fR`, f[1]+".")
	}
	r.para("In a GnuPG home (--homedir ~/.gnupg, or $GNUPGHOME) pgpstream also uses gpg's files; of them it writes only gpg's public ring and, under the TOFU models, tofu.db:")
	for _, f := range [][2]string{
		{"pubring.kbx, pubring.gpg", "gpg's public keys; changes to public keys are saved into pubring.kbx (or an existing pubring.gpg where there is no keybox) under gpg's lock, FILE.lock"},
		{"private-keys-v1.d", "gpg-agent's secret keys, used through the agent, which pgpstream starts there as gpg does unless --no-autostart"},
		{"trustdb.gpg", "the validity gpg computed for each key"},
		{"common.conf", "read for use-keyboxd: keyboxd's database is not read, and pgpstream says so"},
		{"gpg-agent.conf", "its presence makes a directory a GnuPG home"},
	} {
		r.tp(`\fI`+esc(f[0])+`\fR`, f[1]+".")
	}
}

// manEnvVars are the variables pgpstream reads (a test holds this list
// to the names the source reads).
var manEnvVars = [][2]string{
	{"PGPSTREAM_HOME", "the home, when --homedir is not given"},
	{"GNUPGHOME", "the home when neither --homedir nor PGPSTREAM_HOME is set; also the GnuPG home whose running gpg-agent may cache passphrases"},
	{"HOME", "where ~/.pgpstream and ~/.gnupg are"},
	{"GPG_TTY", "the terminal gpg-agent's pinentry asks on (else standard input's)"},
	{"TERM, DISPLAY", "passed on to gpg-agent for its pinentry"},
	{"LC_ALL, LC_CTYPE, LC_MESSAGES, LANG", "passed on to gpg-agent for its pinentry"},
	{"PATH", "where gpg-agent and gpgconf are found"},
	{"GODEBUG", "kept, and extended with cpu.X=off when --disable-hwf re-runs pgpstream so that Go's own AES and SHA code also takes its generic path"},
	{"PGPSTREAM_DISABLED_HWF", "set by pgpstream itself for that re-run"},
	{"SOURCE_DATE_EPOCH", "the date --print-manpage gives the manual, for reproducible builds"},
	{"SSL_CERT_FILE, SSL_CERT_DIR", "the CAs hkps:// and WKD trust, unless --keyserver-options ca-cert-file=FILE says"},
}

func manEnvironment(r *roff) {
	r.macro("SH", "ENVIRONMENT")
	for _, e := range manEnvVars {
		r.tp(`\fB`+esc(e[0])+`\fR`, e[1]+".")
	}
	r.para("Proxy variables (http_proxy, https_proxy) are not used.")
}

func manExitStatus(r *roff) {
	r.macro("SH", "EXIT STATUS")
	for _, e := range [][2]string{
		{"0", "success"},
		{"1", "a signature was bad, had expired or was made by a revoked key (BADSIG, EXPSIG, REVKEYSIG), and nothing else went wrong"},
		{"2", "any error, including a signature that could not be checked; the message is one line, \"pgpstream: error: ...\", with \"pgpstream: hint: ...\" lines where an option would help. No output file the run created is left"},
	} {
		r.tp(`\fB`+e[0]+`\fR`, e[1]+".")
	}
}

// statusDocs say what each status line pgpstream writes means. A test
// holds it to package status: every keyword described, none left over.
var statusDocs = map[string]string{
	"NEWSIG":              "the report on one signature starts",
	"GOODSIG":             "the signature is good",
	"EXPSIG":              "the signature is good but has expired",
	"EXPKEYSIG":           "the signature is good but its key has expired",
	"REVKEYSIG":           "the signature is good but its key is revoked",
	"BADSIG":              "the signature does not verify (exit status 1)",
	"ALREADY_SIGNED":      "the key is already certified by the signing key (--sign-key, --edit-key's sign)",
	"ERRSIG":              "the signature could not be checked; rc 9 means the key is missing, 4 an unsupported algorithm",
	"VALIDSIG":            "the signature is good: the signing key's fingerprint, the signature's date, time, expiry, version, class and the primary key's fingerprint",
	"POLICY_URL":          "a good signature's policy URL",
	"NOTATION_NAME":       "a good signature carries this notation; NOTATION_FLAGS (critical, human-readable) and NOTATION_DATA follow",
	"NOTATION_FLAGS":      "the notation's critical and human-readable flags, 0 or 1 each",
	"NOTATION_DATA":       "a piece of the notation's value, %-escaped, at most 50 bytes of it a line (250 when it is not human-readable)",
	"SIG_ID":              "the signature's ID (gpg's hash of it) and time",
	"KEYREVOKED":          "the signer's key is revoked",
	"KEYEXPIRED":          "a key expired at time",
	"NO_PUBKEY":           "the key is not in the ring",
	"TRUST_UNDEFINED":     "after a good signature: how valid its key is (undefined), under the trust model named",
	"TRUST_NEVER":         "the same, never valid",
	"TRUST_MARGINAL":      "the same, marginally valid",
	"TRUST_FULLY":         "the same, fully valid",
	"TRUST_ULTIMATE":      "the same, ultimately valid (a key of your own)",
	"TOFU_USER":           "under the TOFU models, after a good signature: the binding (fingerprint and address) the next TOFU_STATS is about",
	"TOFU_STATS":          "that binding's history: summary, signatures, encryptions, policy, first and last signature and encryption, validity, days with signatures and with encryptions",
	"TOFU_STATS_LONG":     "the same in words, as on standard error",
	"KEY_CONSIDERED":      "a key was looked at; flags bit 0: it was not selected, bit 1: none of its subkeys could be used",
	"INV_RECP":            "a recipient was refused; reason 10: the key is not valid (see --trust-model)",
	"INV_SGNR":            "a signing key was refused",
	"NO_SECKEY":           "no secret key for a recipient of the message",
	"ENC_TO":              "the message is encrypted to this key",
	"BEGIN_DECRYPTION":    "decryption starts",
	"END_DECRYPTION":      "decryption ended, well or not",
	"DECRYPTION_KEY":      "the key that opened the message, its primary key and its owner trust",
	"DECRYPTION_INFO":     "the integrity method (2: MDC, 0 with AEAD), the cipher and the AEAD algorithm",
	"DECRYPTION_OKAY":     "the message decrypted and authenticated; written only after the integrity check passed",
	"DECRYPTION_FAILED":   "it did not",
	"GOODMDC":             "the MDC checked",
	"BADMDC":              "the integrity check failed",
	"PLAINTEXT":           "the literal data's format (62 binary, 74 text, 75 UTF-8), time and file name",
	"PLAINTEXT_LENGTH":    "the literal data's length, when the packet gives it",
	"SESSION_KEY":         "the session key, with --show-session-key",
	"NODATA":              "no OpenPGP data was found (1: no armored data, 2: no packet, 3: an invalid packet, 4: a signature expected)",
	"BEGIN_ENCRYPTION":    "encryption starts: the integrity method, the cipher and, for AEAD, the AEAD algorithm",
	"END_ENCRYPTION":      "encryption ended",
	"BEGIN_SIGNING":       "signing starts, with the hashes (H8 is SHA256)",
	"SIG_CREATED":         "a signature was made: D detached, C cleartext, S standard; algorithms, class, time and the key's fingerprint",
	"USERID_HINT":         "the key whose passphrase is asked next",
	"NEED_PASSPHRASE":     "a key's passphrase is asked",
	"NEED_PASSPHRASE_SYM": "a message's passphrase is asked",
	"GET_BOOL":            "a yes/no question, to be answered on the command fd (--command-fd)",
	"GET_LINE":            "a question asking for a line on the command fd",
	"GET_HIDDEN":          "a question asking for a passphrase on the command fd (passphrase.enter)",
	"GOT_IT":              "the answer was read",
	"INQUIRE_MAXLEN":      "the longest answer the next question takes",
	"IMPORTED":            "a key was imported",
	"IMPORT_OK":           "what importing did to a key: bit 0 new, 1 new user IDs, 2 new signatures, 3 new subkeys, 4 a secret key",
	"IMPORT_RES":          "the import's counts, in gpg's order",
	"KEY_CREATED":         "a key was made: B primary and subkey, P primary, S subkey",
	"KEY_NOT_CREATED":     "a parameter file's key was not made",
	"DELETE_PROBLEM":      "a key was not deleted: 1 there is no such key, 2 its secret key must be deleted first",
	"PROGRESS":            "how much of the input was read (with --progress): what, ?, done, total, units",
	"SUCCESS":             "an operation succeeded",
	"FAILURE":             "an operation failed, with gpg's error code; \"gpg-exit\" ends a run whose exit status is 1",
	"ERROR":               "an error at location, with gpg's error code",
}

func manStatusLines(r *roff) {
	r.macro("SH", "STATUS LINES")
	r.para("With --status-fd N (or --status-file FILE) pgpstream writes gpg's machine-readable lines, " +
		"\"[GNUPG:] KEYWORD ARGS\", one per event, as GnuPG's doc/DETAILS describes them. In each field " +
		"%, control bytes and (in one-word fields) spaces are written as %XX, so no user ID, file name or " +
		"server answer can end a line or add one. These are the keywords pgpstream writes, with their fields:")
	for _, l := range status.All {
		kw := l.Keyword()
		tag := `\fB` + esc(kw) + `\fR`
		if f := statusFields(l); f != "" {
			tag += " " + f
		}
		r.tp(tag, statusDocs[kw]+".")
	}
}

// statusFields names a status line's fields in order, as DETAILS does:
// each field's name in lower case, optional ones in brackets.
func statusFields(l status.Line) string {
	t := reflect.TypeOf(l)
	var out []string
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name := `\fI` + esc(strings.ToLower(sf.Name)) + `\fR`
		switch sf.Tag.Get("status") {
		case "-":
			continue
		case "omitempty":
			name = "[" + name + "]"
		}
		out = append(out, name)
	}
	return strings.Join(out, " ")
}

func manSafety(r *roff) {
	r.macro("SH", "SAFETY")
	r.para("What pgpstream promises, each checked through the binary by its tests (README.md, Safety, says more):")
	for _, s := range []string{
		"-o FILE is written to an unnamed file beside FILE, which gets the name only after the whole message authenticated and the run ended well; on an error or a signal nothing is left, and a run that exits non-zero leaves no output file it created.",
		"On standard output the first 8 MiB of SEIPD v1 plaintext are held back until the MDC verified; an AEAD chunk is released only after its tag verified, and the message succeeds only after the final tag.",
		"--use-embedded-filename writes the file the message names through the same unnamed file as -o FILE, only after the message authenticated, and only a plain base name in the current directory; an existing file only with --yes.",
		"An unencrypted signed message's data is written only when a signature verified good and none is bad.",
		"Every byte a key, a message or a server controls is escaped on each channel it reaches: status lines, colon listings, messages on standard error.",
		"Data without integrity protection (Symmetrically Encrypted Data) is refused unless --allow-unprotected; every integrity failure gives the same message.",
		"SHA-1 data signatures made after 2013-02-01, and SHA-1 self-signatures made after 2023-02-01, do not count.",
		"A reader that goes away (standard output, standard error, the status fd) is an error, exit status 2, never a silent SIGPIPE; core dumps are off.",
		"Every file read whole (gpg.conf, the rings, key files) has a limit for its kind; a file past it is one line, exit status 2.",
		"The progress line is drawn only on a terminal that carries nothing else: never while a passphrase, a pinentry or the command fd is asked, never when the status lines go to the same terminal.",
	} {
		r.bullet(s)
	}
}

func manDifferences(r *roff) {
	r.macro("SH", "DIFFERENCES FROM GPG")
	for _, s := range []string{
		"With no home named, an existing ~/.gnupg is the home, as for gpg; with none, pgpstream makes ~/.pgpstream, not ~/.gnupg. In a GnuPG home of gpg's files only the public ring and tofu.db are written, under gpg's locks.",
		"Messages are written with AES alone; Camellia, IDEA, 3DES, CAST5, Blowfish and Twofish are read, never written (see --version). Compression is off unless asked for (-z, --compress-algo).",
		"--force-aead writes what gpg 2.4 writes; --force-seipdv2 writes RFC 9580 SEIPD v2, which gpg 2.2 and 2.4 cannot read.",
		"-r or -u with a pattern that matches several keys is an error; gpg 2.2 takes the first.",
		"Under the TOFU models pgpstream never prompts about a conflict, as gpg does not in --batch: --tofu-policy decides. Two keys count as cross-signed only when each certified the other's user ID with the address (gpg 2.2 also counts a key whose matching user ID is followed by another, and then reports no conflict).",
		"A failed run leaves no output file, and an input holds one message: whatever follows it is an error (gpg 2.2 leaves the file, and drops or half-reports what follows).",
		"Keys are fetched only when asked: there is no default keyserver, and -r EMAIL looks in the Web Key Directory only with --auto-key-locate wkd.",
		"--use-embedded-filename takes only a plain base name and writes it in the current directory; a name that is empty, . or .., has a / or a control character is refused (gpg 2.2 writes whatever the message names, ../evil too).",
		"-z outside 0..9 is an error, and gpg options pgpstream lacks are errors naming them.",
		"The first line of --version is gpg's, so that clients read a version they accept; the second names pgpstream.",
	} {
		r.bullet(s)
	}
}

// roff builds man(7) source.
type roff struct {
	b    strings.Builder
	last string // the last request written, to leave out a paragraph right after a heading
}

// line writes one line of source as it is.
func (r *roff) line(s string) {
	r.b.WriteString(s + "\n")
	r.last = ""
	if strings.HasPrefix(s, ".") {
		r.last, _, _ = strings.Cut(s[1:], " ")
	}
}

// macro writes a request with its arguments quoted; they are written as
// they are but for double quotes.
func (r *roff) macro(name string, args ...string) {
	l := "." + name
	for _, a := range args {
		l += ` "` + strings.ReplaceAll(a, `"`, `\(dq`) + `"`
	}
	r.line(l)
}

// para is a paragraph of plain text (none is needed right after a
// heading).
func (r *roff) para(s string) {
	if r.last != "SH" && r.last != "SS" {
		r.line(".PP")
	}
	r.fill(s)
}

// tp is a tagged paragraph: tag in roff (fonts set), body plain text.
func (r *roff) tp(tag, body string) {
	r.line(".TP")
	r.line(tag)
	r.fill(body)
}

// bullet is an item of a list, plain text.
func (r *roff) bullet(s string) {
	r.line(`.IP \(bu 2`)
	r.fill(s)
}

// fill writes plain text escaped, as man(7) source is best written: a new
// line for each sentence, none longer than 80 bytes where a space allows,
// and none starting with a control character.
func (r *roff) fill(s string) {
	var l string
	flush := func() {
		if l != "" {
			if l[0] == '.' || l[0] == '\'' {
				l = `\&` + l
			}
			r.line(l)
			l = ""
		}
	}
	for _, word := range strings.Fields(s) {
		w := esc(word)
		if l != "" && len(l)+1+len(w) > 80 {
			flush()
		}
		if l != "" {
			l += " "
		}
		l += w
		if strings.HasSuffix(word, ".") && !strings.HasSuffix(word, "..") {
			flush()
		}
	}
	flush()
}

// esc escapes plain text for roff: backslashes, hyphens as \- (so that
// option names render and search as ASCII minus), quotes that fonts
// would curl, characters outside ASCII by code point; and it gives long
// words places to break (after | and /), so that no output line is too
// long to fill.
func esc(s string) string {
	long := len(s) > 24 && !strings.ContainsRune(s, ' ')
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '\\':
			b.WriteString(`\e`)
		case c == '-':
			b.WriteString(`\-`)
		case c == '\'':
			b.WriteString(`\(aq`)
		case c == '`':
			b.WriteString(`\(ga`)
		case long && (c == '|' || c == '/'):
			b.WriteRune(c)
			b.WriteString(`\:`)
		case c > 0x7e:
			fmt.Fprintf(&b, `\[u%04X]`, c)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}
