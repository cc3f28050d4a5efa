package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	gcpacket "github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/clock"
	"github.com/pgpstream/pgpstream/cmd/pgpstream/internal/status"
	"github.com/pgpstream/pgpstream/internal/escape"
	"github.com/pgpstream/pgpstream/keyring"
)

// The key edit menu, gpg's --edit-key (GnuPG's g10/keyedit.c): one key,
// commands read from the command line, then from --command-fd (each
// asked as GET_LINE keyedit.prompt) or at the terminal's "gpg>" prompt,
// every question asked with gpg's keyword, in gpg's order. Changes are
// made on a copy and written by "save" (keyring.Session); "trust" sets
// the owner trust at once, as in gpg.

// keyEditor is one run of the menu.
type keyEditor struct {
	st      *state
	o       *options
	m       *menuIO
	sw      *statusWriter
	ring    *keyring.Ring
	s       *keyring.Session
	uidSel  map[int]bool // 1-based, in the menu's order
	keySel  map[int]bool
	queue   []string // commands from the command line
	fromCLI bool
}

func cmdEditKey(st *state, o *options) error {
	if len(o.args) < 1 {
		return usageError{msg: "--edit-key takes a key and optionally commands", hints: []string{"pgpstream --edit-key KEY [sign|lsign|trust|expire|adduid|...] [save]"}}
	}
	e, err := newKeyEditor(st, o, o.args[0])
	if err != nil {
		return err
	}
	e.queue, e.fromCLI = o.args[1:], len(o.args) > 1
	return e.run()
}

// cmdSignKey is gpg's --sign-key and --lsign-key: the menu's sign (or
// lsign), then save.
func cmdSignKey(st *state, o *options) error {
	if len(o.args) != 1 {
		return usageError{msg: "--" + o.cmd.String() + " takes one key", hints: []string{"pgpstream --" + o.cmd.String() + " KEY"}}
	}
	e, err := newKeyEditor(st, o, o.args[0])
	if err != nil {
		return err
	}
	e.show()
	word := "sign" // the menu's command that --sign-key is
	if o.cmd == commandLsignKey {
		word = "lsign"
	}
	ok, err := e.sign(word)
	if err != nil || !ok {
		return err
	}
	return e.save()
}

func newKeyEditor(st *state, o *options, spec string) (*keyEditor, error) {
	sw, err := openStatus(st, o)
	if err != nil {
		return nil, err
	}
	m, err := newMenuIO(st, o)
	if err != nil {
		return nil, err
	}
	ring, err := openRing(st, o)
	if err != nil {
		return nil, err
	}
	e := &keyEditor{st: st, o: o, m: m, sw: sw, ring: ring, uidSel: map[int]bool{}, keySel: map[int]bool{}}
	var pp *passphrases
	pass := func() ([]byte, error) {
		if pp == nil {
			pp = newPassphrases(st, o)
		}
		return pp.Get(false)
	}
	s, err := ring.Edit(spec, func() ([]byte, error) {
		p, err := pass()
		if errors.Is(err, errNoPassphrase) {
			return nil, withHints(errors.New("the key is protected by a passphrase and none was given"), "give it with --passphrase-file FILE or --passphrase-fd N")
		}
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("key %q not found: %w", spec, err)
	}
	e.s = s
	sw.Write(status.KeyConsidered{Fpr: s.Key().Fingerprint()})
	return e, nil
}

// run is the menu's loop.
func (e *keyEditor) run() error {
	if !e.fromCLI {
		e.show()
	}
	for {
		line, err := e.next()
		if errors.Is(err, io.EOF) {
			return e.quitAtEOF()
		}
		if err != nil {
			return err
		}
		cmd, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
		cmd, arg = strings.ToLower(cmd), strings.TrimSpace(arg)
		done, err := e.do(cmd, arg)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

// next is the next command: from the command line, then asked; in
// --batch with the command line's run out, "quit".
func (e *keyEditor) next() (string, error) {
	if len(e.queue) > 0 {
		c := e.queue[0]
		e.queue = e.queue[1:]
		return c, nil
	}
	if e.fromCLI && e.o.batch && !e.m.a.HasCommand() {
		return "quit", nil
	}
	e.fromCLI = false
	return e.m.getLine("keyedit.prompt", e.st.prog+"> ")
}

// quitAtEOF ends the menu when its input ended: nothing is saved.
func (e *keyEditor) quitAtEOF() error {
	if e.s.Changed() {
		return errors.New("the input ended before save: the changes were not saved")
	}
	return nil
}

// do runs one command; done ends the menu.
func (e *keyEditor) do(cmd, arg string) (done bool, err error) {
	if n, err := strconv.Atoi(cmd); err == nil {
		e.selectUID(n)
		return false, nil
	}
	switch cmd {
	case "":
	case "quit", "q":
		return e.quit()
	case "save":
		return true, e.save()
	case "help", "?":
		e.help()
	case "list", "l":
		e.show()
	case "fpr":
		e.fpr()
	case "uid":
		e.selectArg(arg, e.selectUID)
	case "key":
		e.selectArg(arg, e.selectKey)
	case "sign", "s", "lsign", "tsign":
		_, err = e.sign(cmd)
	case "trust":
		err = e.trust()
	case "expire":
		err = e.expire()
	case "adduid":
		err = e.addUID()
	case "deluid":
		err = e.delUID()
	case "revuid":
		err = e.revUID()
	case "primary":
		err = e.primary()
	case "addkey":
		err = e.addKey()
	case "revkey":
		err = e.revKey()
	case "passwd", "password":
		err = e.passwd()
	default:
		e.m.show("Invalid command  (try \"help\")")
	}
	if err != nil {
		return false, e.report(err)
	}
	return false, nil
}

// report shows a command's failure as gpg does and goes on with the
// menu, unless there is no one to answer (gpg exits then too).
func (e *keyEditor) report(err error) error {
	if errors.Is(err, errBatchInput) || errors.Is(err, errCommandEOF) {
		return err
	}
	e.st.errorf("%v", err)
	e.st.exit = 2
	return nil
}

func (e *keyEditor) quit() (bool, error) {
	if !e.s.Changed() || len(e.queue) > 0 {
		return true, nil
	}
	if e.fromCLI {
		return true, nil
	}
	yes, err := e.m.getBool("keyedit.save.okay", "Save changes? (y/N) ")
	if err != nil {
		return false, err
	}
	if yes {
		return true, e.save()
	}
	if e.m.a.HasCommand() {
		return true, nil
	}
	cancel, err := e.m.getBool("keyedit.cancel.okay", "Quit without saving? (y/N) ")
	return cancel, err
}

func (e *keyEditor) save() error {
	if !e.s.Changed() {
		e.m.show("Key not changed so no update needed.")
		return nil
	}
	return e.s.Save()
}

func (e *keyEditor) help() {
	for _, l := range []string{
		"quit        quit this menu", "save        save and quit", "help        show this help",
		"fpr         show key fingerprint", "list        list key and user IDs", "uid         select user ID N",
		"key         select subkey N", "sign        sign selected user IDs [* see below for related commands]",
		"lsign       sign selected user IDs locally", "tsign       sign selected user IDs with a trust signature",
		"adduid      add a user ID", "deluid      delete selected user IDs", "addkey      add a subkey",
		"revkey      revoke key or selected subkeys", "revuid      revoke selected user IDs",
		"expire      change the expiration date for the key or selected subkeys",
		"primary     flag the selected user ID as primary", "passwd      change the passphrase",
		"trust       change the ownertrust",
	} {
		e.m.show("%s", l)
	}
}

// view is the key as the menu numbers it.
func (e *keyEditor) view() keyring.KeyView { return e.s.Key().View(clock.Now()) }

// show lists the key as gpg's menu does.
func (e *keyEditor) show() {
	k := e.s.Key()
	v := e.view()
	fpr := k.Fingerprint()
	typ, sub := "pub", "sub"
	if e.s.HasSecret() {
		typ, sub = "sec", "ssb"
	}
	e.m.blank()
	e.m.show("%s  %s/%016X", typ, v.Primary.Algo, v.Primary.KeyID)
	e.m.show("     %s  usage: %-4s", partDates(v.Primary), v.Primary.Usage)
	ot := e.ring.OwnerTrust(fpr)
	e.m.show("     trust: %-13s validity: %s", trustWord(ot), trustWord(e.ring.Validity(fpr, e.o.trustModelName())))
	for i, s := range v.Subkeys {
		mark := " "
		if e.keySel[i+1] {
			mark = "*"
		}
		e.m.show("%s%s %s/%016X", sub, mark, s.Algo, s.KeyID)
		e.m.show("     %s  usage: %-4s", partDates(s), s.Usage)
	}
	for i, u := range v.UserIDs {
		mark := " "
		if u.Primary {
			mark = "."
		}
		if e.uidSel[i+1] {
			mark = "*"
		}
		e.m.show("[%s] (%d)%s %s", uidValidityWord(e, fpr, u), i+1, mark, u.Name)
	}
	e.m.blank()
}

func partDates(p keyring.KeyPart) string {
	exp := "never     "
	word := "expires"
	if !p.Expires.IsZero() {
		exp = p.Expires.UTC().Format(time.DateOnly)
		if p.Expired {
			word = "expired"
		}
	}
	if p.Revoked {
		return fmt.Sprintf("created: %s  revoked: %s", p.Created.UTC().Format(time.DateOnly), "          ")
	}
	return fmt.Sprintf("created: %s  %s: %s", p.Created.UTC().Format(time.DateOnly), word, exp)
}

func trustWord(t keyring.OwnerTrust) string { return t.Word() }

func uidValidityWord(e *keyEditor, fpr string, u keyring.UserIDView) string {
	switch {
	case u.Revoked:
		return " revoked"
	case u.Expired:
		return " expired"
	}
	switch e.ring.UserIDValidity(fpr, u.Name, e.o.trustModelName()) {
	case keyring.TrustUltimate:
		return "ultimate"
	case keyring.TrustFully:
		return "  full  "
	case keyring.TrustMarginal:
		return "marginal"
	case keyring.TrustNever:
		return "  never "
	case keyring.TrustUndefined:
		return "  undef "
	}
	return " unknown"
}

func (e *keyEditor) fpr() {
	k := e.s.Key()
	v := e.view()
	e.m.show("%s   %s/%016X %s %s", "pub", v.Primary.Algo, v.Primary.KeyID, v.Primary.Created.UTC().Format(time.DateOnly), k.PrimaryUserID())
	e.m.show(" Primary key fingerprint: %s", keyring.SpacedFingerprint(v.Primary.Fingerprint))
}

// selectArg applies "uid N" or "key N" ("*" all, none or 0: clear).
func (e *keyEditor) selectArg(arg string, sel func(int)) {
	if arg == "*" {
		sel(-1)
		return
	}
	n, err := strconv.Atoi(arg)
	if arg == "" {
		n, err = 0, nil
	}
	if err != nil {
		e.m.show("Invalid command  (try \"help\")")
		return
	}
	sel(n)
}

func (e *keyEditor) selectUID(n int) {
	count := len(e.view().UserIDs)
	switch {
	case n == 0:
		e.uidSel = map[int]bool{}
	case n < 0:
		for i := 1; i <= count; i++ {
			e.uidSel[i] = true
		}
	case n > count:
		e.m.show("No user ID with index %d", n)
		return
	default:
		e.uidSel[n] = !e.uidSel[n]
	}
	e.show()
}

func (e *keyEditor) selectKey(n int) {
	count := len(e.view().Subkeys)
	switch {
	case n == 0:
		e.keySel = map[int]bool{}
	case n < 0:
		for i := 1; i <= count; i++ {
			e.keySel[i] = true
		}
	case n > count:
		e.m.show("No subkey with index %d", n)
		return
	default:
		e.keySel[n] = !e.keySel[n]
	}
	e.show()
}

// selectedUIDs are the selected user IDs' names, in menu order.
func (e *keyEditor) selectedUIDs() []string {
	var out []string
	for i, u := range e.view().UserIDs {
		if e.uidSel[i+1] {
			out = append(out, u.Name)
		}
	}
	return out
}

// selectedKeys are the selected subkeys.
func (e *keyEditor) selectedKeys() []keyring.KeyPart {
	var out []keyring.KeyPart
	for i, s := range e.view().Subkeys {
		if e.keySel[i+1] {
			out = append(out, s)
		}
	}
	return out
}

// askChoice asks until ok accepts the answer (or the input ends).
func (e *keyEditor) askChoice(keyword, prompt string, ok func(string) bool) (string, error) {
	for {
		a, err := e.m.getLine(keyword, prompt)
		if err != nil {
			return "", err
		}
		if ok(a) {
			return a, nil
		}
		e.m.show("Invalid selection.")
	}
}

// trust is the menu's trust: the owner trust, set at once.
func (e *keyEditor) trust() error {
	k := e.s.Key()
	e.show()
	t, ok, err := askOwnerTrust(e.m, k, true)
	if err != nil || !ok {
		return err
	}
	if err := e.ring.SetOwnerTrust(map[string]keyring.OwnerTrust{k.Fingerprint(): t}); err != nil {
		return err
	}
	e.show()
	return nil
}

// askOwnerTrust is gpg's owner trust question. inMenu offers "5 = I
// trust ultimately" and "m = back to the main menu" (the menu's trust);
// otherwise "s = skip this key" and "q = quit" (--update-trustdb), where
// quit is reported as errQuitTrust.
func askOwnerTrust(m *menuIO, k *keyring.Key, inMenu bool) (keyring.OwnerTrust, bool, error) {
	if !inMenu {
		m.show("No trust value assigned to:")
		m.show("pub   %s", k.Fingerprint())
		m.show("      \"%s\"", k.PrimaryUserID())
		m.show(" Primary key fingerprint: %s", keyring.SpacedFingerprint(k.PrimaryPublic().Fingerprint))
		m.blank()
	}
	m.show("Please decide how far you trust this user to correctly verify other users' keys")
	m.show("(by looking at passports, checking fingerprints from different sources, etc.)")
	m.blank()
	m.show("  1 = I don't know or won't say")
	m.show("  2 = I do NOT trust")
	m.show("  3 = I trust marginally")
	m.show("  4 = I trust fully")
	if inMenu {
		m.show("  5 = I trust ultimately")
		m.show("  m = back to the main menu")
	} else {
		m.show("  s = skip this key")
		m.show("  q = quit")
	}
	m.blank()
	for {
		a, err := m.getLine("edit_ownertrust.value", "Your decision? ")
		if errors.Is(err, io.EOF) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
		a = strings.ToLower(a)
		switch {
		case inMenu && a == "m", !inMenu && a == "s":
			return 0, false, nil
		case !inMenu && a == "q":
			return 0, false, errQuitTrust
		}
		n, err := strconv.Atoi(a)
		if err != nil || n < 1 || n > 5 || (n == 5 && !inMenu) {
			continue
		}
		t := keyring.OwnerTrust(n + 1)
		if t == keyring.TrustUltimate {
			yes, err := m.getBool("edit_ownertrust.set_ultimate.okay", "Do you really want to set this key to ultimate trust? (y/N) ")
			if err != nil || !yes {
				return 0, false, err
			}
		}
		return t, true, nil
	}
}

// errQuitTrust: the user quit --update-trustdb's questions.
var errQuitTrust = errors.New("quit")

// askIntroducerTrust is --update-trustdb's part: the owner trust of each
// introducer that has none is asked, and the web computed again with
// the answer.
func askIntroducerTrust(st *state, o *options, ring *keyring.Ring) error {
	m, err := newMenuIO(st, o)
	if err != nil {
		return err
	}
	asked := map[string]bool{}
	for {
		var fpr string
		for _, f := range ring.CheckTrust().Unasked {
			if !asked[f] {
				fpr = f
				break
			}
		}
		if fpr == "" {
			return nil
		}
		asked[fpr] = true
		k, err := ring.Lookup(fpr, false)
		if err != nil {
			return err
		}
		t, ok, err := askOwnerTrust(m, k, false)
		if errors.Is(err, errQuitTrust) {
			return nil
		}
		if err != nil {
			return err
		}
		if ok {
			if err := ring.SetOwnerTrust(map[string]keyring.OwnerTrust{fpr: t}); err != nil {
				return err
			}
		}
	}
}

// expire is the menu's expire: the selected subkeys', else the primary
// key's.
func (e *keyEditor) expire() error {
	if err := e.s.Editable(); err != nil {
		return err
	}
	subs := e.selectedKeys()
	if len(subs) == 0 {
		e.m.show("Changing expiration time for the primary key.")
	} else {
		e.m.show("Changing expiration time for a subkey.")
	}
	t, err := e.askValidity()
	if err != nil {
		return err
	}
	var fprs []string
	for _, s := range subs {
		fprs = append(fprs, fmt.Sprintf("%X", s.Fingerprint))
	}
	if err := e.s.SetExpire(t, fprs); err != nil {
		return err
	}
	e.show()
	return nil
}

// askValidity is gpg's "Key is valid for?" (keygen.valid); a bare N is
// days, and on a terminal the date is confirmed (keygen.valid.okay).
func (e *keyEditor) askValidity() (time.Time, error) {
	e.m.show("Please specify how long the key should be valid.")
	e.m.show("         0 = key does not expire")
	e.m.show("      <n>  = key expires in n days")
	e.m.show("      <n>w = key expires in n weeks")
	e.m.show("      <n>m = key expires in n months")
	e.m.show("      <n>y = key expires in n years")
	for {
		a, err := e.m.getLine("keygen.valid", "Key is valid for? (0) ")
		if err != nil {
			return time.Time{}, err
		}
		t, perr := keyring.ParseExpire(a, clock.Now())
		if perr != nil {
			e.m.show("invalid value")
			continue
		}
		if e.m.a.HasCommand() {
			return t, nil
		}
		if t.IsZero() {
			e.m.show("Key does not expire at all")
		} else {
			e.m.show("Key expires at %s", t.UTC().Format(time.RFC1123))
		}
		ok, err := e.m.getBool("keygen.valid.okay", "Is this correct? (y/N) ")
		if err != nil {
			return time.Time{}, err
		}
		if ok {
			return t, nil
		}
	}
}

// addUID is the menu's adduid: name, address and comment asked as gpg
// asks them.
func (e *keyEditor) addUID() error {
	if err := e.s.Editable(); err != nil {
		return err
	}
	name, err := e.askUntil("keygen.name", "Real name: ", func(a string) string {
		switch {
		case strings.ContainsAny(a, "<>"):
			return "Invalid character in name"
		case a != "" && a[0] >= '0' && a[0] <= '9':
			return "Name may not start with a digit"
		case a != "" && len(a) < 5:
			return "Name must be at least 5 characters long"
		}
		return ""
	})
	if err != nil {
		return err
	}
	mail, err := e.askUntil("keygen.email", "Email address: ", func(a string) string {
		if a != "" && (strings.Count(a, "@") != 1 || strings.ContainsAny(a, " <>") || strings.HasPrefix(a, "@") || strings.HasSuffix(a, "@")) {
			return "Not a valid email address"
		}
		return ""
	})
	if err != nil {
		return err
	}
	comment, err := e.askUntil("keygen.comment", "Comment: ", func(a string) string {
		if strings.ContainsAny(a, "()") {
			return "Invalid character in comment"
		}
		return ""
	})
	if err != nil {
		return err
	}
	uid := name
	if comment != "" {
		uid += " (" + comment + ")"
	}
	if mail != "" {
		uid += " <" + mail + ">"
	}
	uid = strings.TrimSpace(uid)
	if uid == "" {
		return errors.New("a user ID needs a name or an address")
	}
	e.m.show("You selected this USER-ID:\n    \"%s\"", uid)
	if err := e.s.AddUserID(uid); err != nil {
		if errors.Is(err, keyring.ErrUserIDExists) {
			return errors.New("Such a user ID already exists on this key!")
		}
		return err
	}
	e.show()
	return nil
}

// askUntil asks until check finds nothing wrong with the answer.
func (e *keyEditor) askUntil(keyword, prompt string, check func(string) string) (string, error) {
	for {
		a, err := e.m.getLine(keyword, prompt)
		if err != nil {
			return "", err
		}
		if msg := check(a); msg != "" {
			e.m.show("%s", msg)
			continue
		}
		return a, nil
	}
}

func (e *keyEditor) delUID() error {
	uids := e.selectedUIDs()
	if len(uids) == 0 {
		e.m.show("You must select at least one user ID.")
		return nil
	}
	if err := e.s.Editable(); err != nil {
		return err
	}
	q := "Really remove this user ID? (y/N) "
	if len(uids) > 1 {
		q = "Really remove all selected user IDs? (y/N) "
	}
	ok, err := e.m.getBool("keyedit.remove.uid.okay", q)
	if err != nil || !ok {
		return err
	}
	if err := e.s.DeleteUserIDs(uids); err != nil {
		return err
	}
	e.uidSel = map[int]bool{}
	e.show()
	return nil
}

func (e *keyEditor) revUID() error {
	uids := e.selectedUIDs()
	if len(uids) == 0 {
		e.m.show("You must select at least one user ID.")
		return nil
	}
	if err := e.s.Editable(); err != nil {
		return err
	}
	q := "Really revoke this user ID? (y/N) "
	if len(uids) > 1 {
		q = "Really revoke all selected user IDs? (y/N) "
	}
	ok, err := e.m.getBool("keyedit.revoke.uid.okay", q)
	if err != nil || !ok {
		return err
	}
	code, text, ok, err := e.askReason(false)
	if err != nil || !ok {
		return err
	}
	for _, u := range uids {
		if err := e.s.RevokeUserID(u, code, text); err != nil {
			return err
		}
	}
	e.show()
	return nil
}

func (e *keyEditor) revKey() error {
	subs := e.selectedKeys()
	if len(subs) == 0 {
		e.m.show("You must select at least one key.")
		return nil
	}
	if err := e.s.Editable(); err != nil {
		return err
	}
	q := "Do you really want to revoke this subkey? (y/N) "
	if len(subs) > 1 {
		q = "Do you really want to revoke the selected subkeys? (y/N) "
	}
	ok, err := e.m.getBool("keyedit.revoke.subkey.okay", q)
	if err != nil || !ok {
		return err
	}
	code, text, ok, err := e.askReason(true)
	if err != nil || !ok {
		return err
	}
	for _, s := range subs {
		if err := e.s.RevokeSubkey(s.Fingerprint, code, text); err != nil {
			return err
		}
	}
	e.keySel = map[int]bool{}
	e.show()
	return nil
}

// askReason is gpg's ask_revocation_reason: a code, a description ended
// by an empty line, and a confirmation; asked again until confirmed.
// ok is false when canceled.
func (e *keyEditor) askReason(forKey bool) (code int, text string, ok bool, err error) {
	reasons := map[string]string{"0": "No reason specified", "4": "User ID is no longer valid"}
	if forKey {
		reasons = map[string]string{"0": "No reason specified", "1": "Key has been compromised", "2": "Key is superseded", "3": "Key is no longer used"}
	}
	for {
		e.m.show("Please select the reason for the revocation:")
		for _, c := range []string{"0", "1", "2", "3", "4"} {
			if r, ok := reasons[c]; ok {
				e.m.show("  %s = %s", c, r)
			}
		}
		e.m.show("  Q = Cancel")
		a, err := e.askChoice("ask_revocation_reason.code", "Your decision? ", func(a string) bool {
			_, ok := reasons[a]
			return ok || strings.EqualFold(a, "q")
		})
		if err != nil {
			return 0, "", false, err
		}
		if strings.EqualFold(a, "q") {
			return 0, "", false, nil
		}
		e.m.show("Enter an optional description; end it with an empty line:")
		var lines []string
		for {
			l, err := e.m.getLine("ask_revocation_reason.text", "> ")
			if err != nil {
				return 0, "", false, err
			}
			if l == "" {
				break
			}
			lines = append(lines, l)
		}
		text = strings.Join(lines, "\n")
		e.m.show("Reason for revocation: %s", reasons[a])
		if text == "" {
			e.m.show("(No description given)")
		} else {
			e.m.show("%s", text)
		}
		yes, err := e.m.getBool("ask_revocation_reason.okay", "Is this okay? (y/N) ")
		if err != nil {
			return 0, "", false, err
		}
		if yes {
			code, _ = strconv.Atoi(a)
			return code, text, true, nil
		}
	}
}

func (e *keyEditor) primary() error {
	uids := e.selectedUIDs()
	if len(uids) != 1 {
		e.m.show("Please select exactly one user ID.")
		return nil
	}
	if err := e.s.SetPrimaryUserID(uids[0]); err != nil {
		return err
	}
	e.show()
	return nil
}

// addKey is the menu's addkey: gpg's menu of algorithms (with --expert
// the ECC ones), the size or curve, and the validity.
func (e *keyEditor) addKey() error {
	if err := e.s.Editable(); err != nil {
		return err
	}
	e.m.show("Please select what kind of key you want:")
	e.m.show("   (4) RSA (sign only)")
	e.m.show("   (6) RSA (encrypt only)")
	if e.o.keys.expert {
		e.m.show("  (10) ECC (sign only)")
		e.m.show("  (12) ECC (encrypt only)")
	}
	a, err := e.askChoice("keygen.algo", "Your selection? ", func(a string) bool {
		switch a {
		case "4", "6", "rsa/s", "rsa/e":
			return true
		case "10", "12", "ecc/s", "ecc/e":
			return e.o.keys.expert
		}
		return false
	})
	if err != nil {
		return err
	}
	opt := keyring.AddKeyOptions{Usage: "sign"}
	if a == "6" || a == "12" || a == "rsa/e" || a == "ecc/e" {
		opt.Usage = "encr"
	}
	if a == "4" || a == "6" || strings.HasPrefix(a, "rsa") {
		bits, err := e.askChoice("keygen.size", "What keysize do you want? (3072) ", func(a string) bool {
			return a == "" || a == "2048" || a == "3072" || a == "4096"
		})
		if err != nil {
			return err
		}
		if bits == "" {
			bits = "3072"
		}
		opt.Algo = "rsa" + bits
	} else {
		e.m.show("Please select which elliptic curve you want:")
		e.m.show("   (1) Curve 25519 *default*")
		e.m.show("   (3) NIST P-256")
		c, err := e.askChoice("keygen.curve", "Your selection? ", func(a string) bool { return a == "" || a == "1" || a == "3" })
		if err != nil {
			return err
		}
		switch {
		case c == "3":
			opt.Algo = "nistp256"
		case opt.Usage == "encr":
			opt.Algo = "cv25519"
		default:
			opt.Algo = "ed25519"
		}
	}
	if opt.Expires, err = e.askValidity(); err != nil {
		return err
	}
	if !e.m.a.HasCommand() {
		ok, err := e.m.getBool("keygen.sub.okay", "Really create? (y/N) ")
		if err != nil || !ok {
			return err
		}
	}
	fpr, err := e.s.AddSubkey(opt)
	if err != nil {
		return err
	}
	e.sw.Write(status.KeyCreated{Kind: "S", Fpr: fpr})
	e.show()
	return nil
}

// passwd is the menu's passwd: the new passphrase asked (twice on a
// terminal), written by save.
func (e *keyEditor) passwd() error {
	if err := e.s.Editable(); err != nil {
		return err
	}
	nw, err := e.m.hidden("Enter the new passphrase for the key (empty: none).")
	if errors.Is(err, errNoPassphrase) {
		return errors.New("no new passphrase given")
	}
	if err != nil {
		return err
	}
	return e.s.ChangePassphrase(nw)
}

// sign is the menu's sign, lsign and tsign (gpg's sign_uids): with each
// signing key, the selected user IDs (all, once confirmed, when none is
// selected and there are several) that it has not certified already.
// ok is false when nothing was signed.
func (e *keyEditor) sign(cmd string) (ok bool, err error) {
	uids := e.selectedUIDs()
	v := e.view()
	if len(uids) == 0 {
		if len(v.UserIDs) > 1 {
			yes, err := e.m.getBool("keyedit.sign_all.okay", "Really sign all user IDs? (y/N) ")
			if err != nil {
				return false, err
			}
			if !yes {
				e.m.show("Hint: Select the user IDs to sign")
				return false, nil
			}
		}
		for _, u := range v.UserIDs {
			uids = append(uids, u.Name)
		}
	}
	signers, err := e.certifiers()
	if err != nil {
		return false, err
	}
	for _, sg := range signers {
		if err := e.signWith(cmd, sg, uids); err != nil {
			return false, err
		}
	}
	return e.s.Changed(), nil
}

// certifier is a key that certifies: its primary secret key, unlocked.
type certifier struct {
	k    *keyring.Key
	priv *gcpacket.PrivateKey
}

// certifiers are the keys -u names (else --default-key, else the first
// secret key that can certify), each with its primary secret key
// unlocked as a signing key is (internal/ask).
func (e *keyEditor) certifiers() ([]certifier, error) {
	return certifiersFor(e.st, e.o, e.ring, e.sw)
}

func certifiersFor(st *state, o *options, ring *keyring.Ring, sw *statusWriter) ([]certifier, error) {
	var keys []*keyring.Key
	for _, spec := range o.localUsers {
		k, err := ring.Lookup(spec, true)
		if err != nil {
			return nil, withHints(fmt.Errorf("--local-user %q: %w", spec, err), "list the secret keys you have with pgpstream --list-secret-keys")
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		all, _ := ring.Select(nil, true)
		for _, k := range all {
			if p := k.PrivateKey(k.PrimaryPublic().Fingerprint); p != nil && !p.Dummy() {
				keys = append(keys, k)
				break
			}
		}
	}
	if len(keys) == 0 {
		return nil, withHints(errors.New("no secret key to certify with"), "make one with --quick-gen-key, or name yours with -u KEY")
	}
	pp := newPassphrases(st, o)
	var out []certifier
	for _, k := range keys {
		sw.Write(status.KeyConsidered{Fpr: k.Fingerprint()})
		sw.Write(status.KeyConsidered{Fpr: k.Fingerprint()})
		priv := k.PrivateKey(k.PrimaryPublic().Fingerprint)
		if priv == nil || priv.Dummy() {
			return nil, fmt.Errorf("key %s: the secret primary key, which certifies, is not here", k.Fingerprint())
		}
		if priv.Encrypted {
			err := pp.UnlockKey(priv, fmt.Sprintf("Enter the passphrase to unlock the secret key %016X of %s to certify.", priv.KeyId, escape.Quoted(k.PrimaryUserID())),
				func(pass []byte) error { return keyring.Unlock(priv, pass) }, needPassphrase(st, o, k, priv))
			if errors.Is(err, errNoPassphrase) {
				return nil, withHints(fmt.Errorf("secret key %016X is protected by a passphrase and none was given", priv.KeyId), "give it with --passphrase-file FILE or --passphrase-fd N")
			}
			if err != nil {
				return nil, fmt.Errorf("secret key %016X: %w", priv.KeyId, err)
			}
		}
		out = append(out, certifier{k, priv})
	}
	return out, nil
}

func (e *keyEditor) signWith(cmd string, sg certifier, uids []string) error {
	k := e.s.Key()
	id := fmt.Sprintf("%016X", sg.priv.KeyId)
	var todo []string
	for _, u := range uids {
		if k.CertifiedBy(u, &sg.priv.PublicKey) {
			e.m.show("\"%s\" was already signed by key %s", u, id)
			e.sw.Write(status.AlreadySigned{KeyID: id})
			continue
		}
		todo = append(todo, u)
	}
	if len(todo) == 0 {
		e.m.show("Nothing to sign with key %s", id)
		return nil
	}
	e.summary(todo)
	opt := keyring.CertifyOptions{Signer: sg.priv, Local: cmd == "lsign", Level: e.o.keys.certLevel, Expires: e.o.certExpires()}
	if cmd == "tsign" {
		if err := e.askTrustSig(&opt); err != nil {
			return err
		}
	}
	if e.o.keys.askLevel {
		if err := e.askCertLevel(&opt); err != nil {
			return err
		}
	}
	e.m.show("Are you sure that you want to sign this key with your")
	e.m.show("key \"%s\" (%s)", sg.k.PrimaryUserID(), id)
	e.m.blank()
	if opt.Local {
		e.m.show("The signature will be marked as non-exportable.")
		e.m.blank()
	}
	yes, err := e.m.getBool("sign_uid.okay", "Really sign? (y/N) ")
	if err != nil || !yes {
		return err
	}
	_, err = e.s.Certify(todo, opt)
	return err
}

// summary is what gpg shows of the key before it asks to sign it.
func (e *keyEditor) summary(uids []string) {
	writeSignSummary(e.m.show, e.m.blank, e.ring, e.s.Key(), uids, e.o.trustModelName())
}

func writeSignSummary(show func(string, ...any), blank func(), ring *keyring.Ring, k *keyring.Key, uids []string, model string) {
	v := k.View(clock.Now())
	fpr := k.Fingerprint()
	blank()
	show("pub  %s/%016X", v.Primary.Algo, v.Primary.KeyID)
	show("     %s  usage: %-4s", partDates(v.Primary), v.Primary.Usage)
	show("     trust: %-13s validity: %s", trustWord(ring.OwnerTrust(fpr)), trustWord(ring.Validity(fpr, model)))
	show(" Primary key fingerprint: %s", keyring.SpacedFingerprint(v.Primary.Fingerprint))
	blank()
	for _, u := range uids {
		show("     %s", u)
	}
	blank()
}

// askTrustSig asks what a trust signature says: its amount, depth and
// domain (gpg's trustsig_prompt).
func (e *keyEditor) askTrustSig(opt *keyring.CertifyOptions) error {
	e.m.show("Please decide how far you trust this user to correctly verify other users' keys")
	e.m.show("(by looking at passports, checking fingerprints from different sources, etc.)")
	e.m.blank()
	e.m.show("  1 = I trust marginally")
	e.m.show("  2 = I trust fully")
	e.m.blank()
	v, err := e.askChoice("trustsig_prompt.trust_value", "Your selection? ", func(a string) bool { return a == "1" || a == "2" })
	if err != nil {
		return err
	}
	opt.TrustAmount = 60
	if v == "2" {
		opt.TrustAmount = 120
	}
	e.m.show("Please enter the depth of this trust signature.")
	e.m.show("A depth greater than 1 allows the key you are signing to make")
	e.m.show("trust signatures on your behalf.")
	d, err := e.askChoice("trustsig_prompt.trust_depth", "Your selection? ", func(a string) bool {
		n, err := strconv.Atoi(a)
		return err == nil && n >= 1 && n <= 255
	})
	if err != nil {
		return err
	}
	n, _ := strconv.Atoi(d)
	opt.TrustDepth = byte(n)
	e.m.show("Please enter a domain to restrict this signature, or enter for none.")
	dom, err := e.m.getLine("trustsig_prompt.trust_regexp", "Your selection? ")
	if err != nil {
		return err
	}
	if dom != "" {
		// gpg's form: an address at the domain or below it.
		opt.TrustRegexp = "<[^>]+[@.]" + strings.ReplaceAll(dom, ".", "\\.") + ">$"
	}
	return nil
}

// askCertLevel is --ask-cert-level's question (sign_uid.class).
func (e *keyEditor) askCertLevel(opt *keyring.CertifyOptions) error {
	e.m.show("How carefully have you verified the key you are about to sign actually belongs")
	e.m.show("to the person named above?  If you don't know what to answer, enter \"0\".")
	e.m.blank()
	e.m.show("   (0) I will not answer. (default)")
	e.m.show("   (1) I have not checked at all.")
	e.m.show("   (2) I have done casual checking.")
	e.m.show("   (3) I have done very careful checking.")
	e.m.blank()
	a, err := e.askChoice("sign_uid.class", "Your selection? (enter '?' for more information): ", func(a string) bool {
		return a == "" || a == "0" || a == "1" || a == "2" || a == "3"
	})
	if err != nil {
		return err
	}
	opt.Level, _ = strconv.Atoi(a)
	return nil
}

// cmdQuickSignKey is gpg's --quick-sign-key and --quick-lsign-key FPR
// [NAMES]: no questions; the key by full fingerprint, the user IDs NAMES
// ("=" exact, else a substring naming one) or all.
func cmdQuickSignKey(st *state, o *options) error {
	if len(o.args) < 1 {
		return usageError{msg: "--" + o.cmd.String() + " takes a fingerprint and optionally user IDs", hints: []string{"pgpstream --" + o.cmd.String() + " FINGERPRINT ['=Name <mail@example.org>']"}}
	}
	sw, err := openStatus(st, o)
	if err != nil {
		return err
	}
	ring, err := openRing(st, o)
	if err != nil {
		return err
	}
	if b, bang, ok := keyring.ParseHexID(o.args[0]); !ok || bang || (len(b) != 20 && len(b) != 32) {
		return fmt.Errorf("%q is not a fingerprint", o.args[0])
	}
	k, err := ring.Lookup(o.args[0], false)
	if err != nil {
		return err
	}
	sw.Write(status.KeyConsidered{Fpr: k.Fingerprint()})
	uids, err := k.CertifyTargets(o.args[1:])
	if err != nil {
		return fmt.Errorf("%w; nothing to sign", err)
	}
	signers, err := certifiersFor(st, o, ring, sw)
	if err != nil {
		return err
	}
	show := func(format string, args ...any) {
		io.WriteString(st.stdout, escape.Human(fmt.Sprintf(format, args...))+"\n")
	}
	blank := func() { io.WriteString(st.stdout, "\n") }
	for _, sg := range signers {
		opt := keyring.CertifyOptions{Signer: sg.priv, Local: o.cmd == commandQuickLsignKey, Level: o.keys.certLevel, Expires: o.certExpires()}
		var todo []string
		id := fmt.Sprintf("%016X", sg.priv.KeyId)
		for _, u := range uids {
			if k.CertifiedBy(u, &sg.priv.PublicKey) {
				show("\"%s\" was already signed by key %s", u, id)
				sw.Write(status.AlreadySigned{KeyID: id})
				continue
			}
			todo = append(todo, u)
		}
		if len(todo) == 0 {
			show("Nothing to sign with key %s", id)
			continue
		}
		writeSignSummary(show, blank, ring, k, todo, o.trustModelName())
		if _, err := ring.Certify(k.Fingerprint(), todo, opt); err != nil && !errors.Is(err, keyring.ErrNothingToSign) {
			return err
		}
		if k, err = ring.Lookup(k.Fingerprint(), false); err != nil {
			return err
		}
		blank()
	}
	return nil
}
