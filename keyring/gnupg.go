package keyring

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp/packet"

	"github.com/pgpstream/pgpstream/agent"
	"github.com/pgpstream/pgpstream/internal/bounded"
	"github.com/pgpstream/pgpstream/keybox"
	"github.com/pgpstream/pgpstream/keygrip"
)

// A GnuPG home holds gpg's own files beside pgpstream's. pgpstream reads
// the public keys in pubring.kbx (gpg 2.1 and later) and pubring.gpg
// (the packet ring of gpg 1.x and of homes made with --keyring), and
// uses the secret keys gpg-agent keeps in private-keys-v1.d through the
// agent, as gpg does. Changes to public keys are saved into gpg's public
// ring under gpg's lock (gnupgwrite.go); secret keys pgpstream makes or
// imports go to its own secring.pgp, and trustdb.gpg and the agent's
// files are never written.
const (
	kbxName      = "pubring.kbx"
	gpgRingName  = "pubring.gpg"
	agentKeysDir = "private-keys-v1.d"
	trustDBName  = "trustdb.gpg"
)

// IsGnuPGHome reports whether dir holds any of the files gpg keeps in a
// home.
func IsGnuPGHome(dir string) bool {
	for _, n := range []string{kbxName, gpgRingName, agentKeysDir, trustDBName} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}

// AgentOptions say how a GnuPG home's gpg-agent is used for the secret
// keys it holds.
type AgentOptions struct {
	// Disable leaves the agent out: only secring.pgp's keys are secret.
	Disable bool
	// Session is the process's connection to the agent (its discovery
	// rule, pinentry mode and terminal), shared with whatever else asks
	// the agent; it is used when its Home is the ring's GnuPG home and
	// it says GnuPGHome. Otherwise the ring opens a session of its own
	// for that home, with the agent's own pinentry mode.
	Session *agent.Session
	// Passphrase answers the agent's passphrase inquiries when the
	// session's PinentryMode is "loopback".
	Passphrase func(AgentPrompt) ([]byte, error)
}

// AgentPrompt is one passphrase inquiry of the agent: its prompt, and
// the key it is for when the key is one of the ring's (KeyID 0 if not).
type AgentPrompt struct {
	Desc   string // the agent's prompt text (percent-escaped as the agent sends it)
	KeyID  uint64 // the (sub)key's ID
	UserID string // the certificate's primary user ID
}

// gnupgFile is one of gpg's public rings, read.
type gnupgFile struct {
	name   string
	blocks []*block
	damage *Damage // where reading stopped, or nil
}

// readGnuPGRings reads the certificates in dir's pubring.kbx and
// pubring.gpg, under the policy pgpstream's own ring has (third-party
// signatures dropped). A file or key that cannot be read is a notice,
// not an error: it is gpg's, and pgpstream's own keys must stay usable.
// A damaged file gives the keys before the damage. Only a file over
// bounded.KeyData is an error.
func readGnuPGRings(dir string) ([]gnupgFile, []Notice, error) {
	var out []gnupgFile
	var notices []Notice
	kbx := filepath.Join(dir, kbxName)
	var f *keybox.File
	data, err := bounded.ReadFile(kbx, bounded.KeyData)
	if err == nil {
		f, err = keybox.Parse(data) // its errors name no file: Notice.File does
	}
	var fe *keybox.FormatError
	switch {
	case errors.Is(err, bounded.ErrTooLarge):
		return nil, nil, fmt.Errorf("keyring: %w", err)
	case err == nil, errors.As(err, &fe) && f != nil:
		var blocks []*block
		for _, b := range f.Blobs {
			// The image as gpg keeps it, with its ring trust
			// packets: they carry where gpg had the key from.
			bs, err := parseBlocks(b.Keyblock)
			if err != nil {
				notices = append(notices, Notice{Kind: NoticeKeySkipped, File: kbx, Offset: b.Offset, Err: err})
				continue
			}
			blocks = append(blocks, bs...)
		}
		g := gnupgFile{name: kbxName, blocks: blocks}
		if fe != nil {
			g.damage = &Damage{File: kbx, Offset: fe.Offset, Keys: len(f.Blobs), Err: errors.New(fe.Msg)}
		}
		out = append(out, g)
	case !errors.Is(err, os.ErrNotExist):
		notices = append(notices, Notice{Kind: NoticeGnuPGUnused, File: kbx, Err: err})
	}
	ring := filepath.Join(dir, gpgRingName)
	rf, err := readRingFile(ring)
	switch {
	case errors.Is(err, bounded.ErrTooLarge):
		return nil, nil, fmt.Errorf("keyring: %w", err)
	case err != nil:
		notices = append(notices, Notice{Kind: NoticeGnuPGUnused, File: ring, Err: err})
	case len(rf.blocks) > 0 || rf.damage != nil:
		out = append(out, gnupgFile{name: gpgRingName, blocks: rf.blocks, damage: rf.damage})
	}
	return out, notices, nil
}

func parseBlocks(data []byte) ([]*block, error) {
	pkts, err := splitPackets(data)
	if err != nil {
		return nil, err
	}
	// A keybox image carries gpg's ring trust packets as pubring.gpg does.
	blocks, err := splitRingBlocks(pkts)
	if err != nil {
		return nil, err
	}
	for _, b := range blocks {
		if b.secret() {
			return nil, fmt.Errorf("%w: a secret key in a public ring", ErrMalformed)
		}
		if err := tidyStored(b); err != nil {
			return nil, err
		}
	}
	return blocks, nil
}

// loadGnuPG adds the keys of gpg's rings in dir to r.keys, each once by
// fingerprint. A key read only from gpg's files keeps its bytes in
// stored, so that save leaves it out of pubring.pgp unless it changed.
func (r *Ring) loadGnuPG(dir string, byFpr map[string]*Key) error {
	files, notices, err := readGnuPGRings(dir)
	if err != nil {
		return err
	}
	r.notices = append(r.notices, notices...)
	for _, f := range files {
		if f.damage != nil {
			r.damage = append(r.damage, f.damage)
		}
		// Old homes hold keys pgpstream cannot read (v3, unknown
		// algorithms); gpg passes over them too. One notice says so.
		skipped := Notice{Kind: NoticeUnreadableKeys, File: filepath.Join(dir, f.name)}
		for _, b := range f.blocks {
			k, err := r.newKey(b, nil)
			if err != nil {
				if skipped.Count++; skipped.Count == 1 {
					fp, _ := fingerprintOf(b.primary.pkt)
					skipped.Key, skipped.Err = fmt.Sprintf("%X", fp), err
				}
				continue
			}
			if prev := byFpr[k.Fingerprint()]; prev != nil {
				if _, err := merge(prev.pub, b); err == nil && prev.refresh() == nil {
					prev.stored, prev.storedRing = prev.pub.bytes(), nil
				}
				continue
			}
			k.stored, k.storedRing, k.from = b.bytes(), b.ringBytes(), f.name
			byFpr[k.Fingerprint()] = k
			r.keys = append(r.keys, k)
		}
		if skipped.Count > 0 {
			r.notices = append(r.notices, skipped)
		}
	}
	return nil
}

// gnupgOnly reports whether save leaves k's certificate out of
// pubring.pgp: it was read from gpg's rings and has not changed since.
func (k *Key) gnupgOnly() bool {
	return k.stored != nil && bytes.Equal(k.pub.bytes(), k.stored)
}

// agentSource finds the secret keys a GnuPG home's gpg-agent holds. It
// connects (starting the agent as gpg does, by the session's rule) the
// first time a secret key is looked for, never for public-key work.
type agentSource struct {
	session *agent.Session
	opt     AgentOptions
	started bool
	conn    *agent.Conn
	held    map[keygrip.Grip]agent.KeyInfo // KEYINFO --list; nil: ask HAVEKEY per key
	asked   map[keygrip.Grip]bool          // HAVEKEY answers, when KEYINFO --list failed
	err     error                          // why the agent cannot be used
	grips   map[string]keygrip.Grip        // by fingerprint
	privs   map[string]*packet.PrivateKey  // by fingerprint
	prompts map[keygrip.Grip]AgentPrompt   // the key each agent key is, for its passphrase inquiries
}

func newAgentSource(home string, opt AgentOptions) *agentSource {
	s := opt.Session
	if s == nil || s.Home != home || !s.GnuPGHome {
		s = &agent.Session{Home: home, GnuPGHome: true}
	}
	return &agentSource{session: s, opt: opt, grips: map[string]keygrip.Grip{}, privs: map[string]*packet.PrivateKey{}, prompts: map[keygrip.Grip]AgentPrompt{}}
}

// start connects once; afterwards a.err says whether it worked.
func (a *agentSource) start() {
	if a.started {
		return
	}
	a.started = true
	c, err := a.session.Conn()
	if err != nil {
		a.err = err
		return
	}
	mode := a.session.PinentryMode
	if err := a.session.ModeError(); err != nil {
		// A restricted socket (an agent forwarded over ssh) refuses
		// the loopback pinentry, as it refuses gpg's.
		a.err = fmt.Errorf("--pinentry-mode %s: %w", mode, err)
		return
	}
	if mode == "loopback" {
		a.session.AnswerPassphrase(func(desc string) ([]byte, error) {
			if a.opt.Passphrase == nil {
				return nil, errors.New("no passphrase given")
			}
			p := a.prompts[c.Asking()]
			p.Desc = desc
			return a.opt.Passphrase(p)
		})
	}
	a.conn = c
	if held, err := c.ListKeys(); err == nil {
		a.held = held
	} else {
		a.asked = map[keygrip.Grip]bool{} // a restricted socket: HAVEKEY then
	}
}

func (a *agentSource) grip(pk *packet.PublicKey) (keygrip.Grip, bool) {
	fp := string(pk.Fingerprint)
	if g, ok := a.grips[fp]; ok {
		return g, true
	}
	g, err := keygrip.Of(pk)
	if err != nil {
		return g, false
	}
	a.grips[fp] = g
	return g, true
}

// holds says whether the agent holds pk's secret half, and how: type
// "D" on disk, "T" on a smartcard. With start false it answers only once
// the agent was asked for something else (listings of public keys and
// encryption never start it).
func (a *agentSource) holds(pk *packet.PublicKey, start bool) (agent.KeyInfo, bool) {
	if a == nil || (!start && !a.started) {
		return agent.KeyInfo{}, false
	}
	a.start()
	if a.conn == nil {
		return agent.KeyInfo{}, false
	}
	g, ok := a.grip(pk)
	if !ok {
		return agent.KeyInfo{}, false
	}
	if a.held != nil {
		ki, ok := a.held[g]
		return ki, ok
	}
	have, ok := a.asked[g]
	if !ok {
		have, _ = a.conn.HaveKey(g)
		a.asked[g] = have
	}
	return agent.KeyInfo{Grip: g, Type: "D"}, have
}

// privateKey is pk of k with its secret half in the agent, or nil.
func (a *agentSource) privateKey(k *Key, pk *packet.PublicKey) *packet.PrivateKey {
	if _, ok := a.holds(pk, true); !ok {
		return nil
	}
	if p := a.privs[string(pk.Fingerprint)]; p != nil {
		return p
	}
	algo, _ := algoName(pk)
	desc := fmt.Sprintf("Please enter the passphrase to unlock the OpenPGP secret key:\n\"%s\"\n%s key, ID %016X,\ncreated %s.\n",
		k.PrimaryUserID(), algo, pk.KeyId, pk.CreationTime.UTC().Format(time.DateOnly))
	p, err := agent.NewPrivateKey(a.conn, pk, desc)
	if err != nil {
		return nil
	}
	fpr := pk.Fingerprint
	agent.AgentKey(p).WrapErr = func(err error) error {
		if errors.Is(err, agent.ErrBadPassphrase) {
			return fmt.Errorf("keyring: key %X: %w (%v)", fpr, ErrBadPassphrase, err)
		}
		return fmt.Errorf("keyring: key %X: %w", fpr, err)
	}
	a.privs[string(pk.Fingerprint)] = p
	a.prompts[agent.AgentKey(p).Grip] = AgentPrompt{KeyID: pk.KeyId, UserID: k.PrimaryUserID()}
	return p
}

// publicKeys is the primary key and every subkey of the certificate as
// stored, the policy's view aside: decryption does not judge bindings.
func (k *Key) publicKeys() []*packet.PublicKey {
	out := []*packet.PublicKey{k.whole.PrimaryKey}
	for _, s := range k.whole.Subkeys {
		out = append(out, s.PublicKey)
	}
	return out
}

// agentPrivateKey is PrivateKey for a (sub)key whose secret half only the
// agent has.
func (k *Key) agentPrivateKey(fingerprint []byte) *packet.PrivateKey {
	if k.agent == nil {
		return nil
	}
	for _, pk := range k.publicKeys() {
		if bytes.Equal(pk.Fingerprint, fingerprint) {
			return k.agent.privateKey(k, pk)
		}
	}
	return nil
}

// inAgent reports whether the agent holds the secret half of any of k's
// keys (starting it if start).
func (k *Key) inAgent(start bool) bool {
	if k.agent == nil {
		return false
	}
	for _, pk := range k.publicKeys() {
		if _, ok := k.agent.holds(pk, start); ok {
			return true
		}
	}
	return false
}

// agentMark is secretMark for a key the agent holds: '+', or '>' for a
// key on a smartcard, as gpg's listings show them; 0 when it does not.
func (k *Key) agentMark(pk *packet.PublicKey) byte {
	ki, ok := k.agent.holds(pk, false)
	switch {
	case !ok:
		return 0
	case ki.Type == "T":
		return '>'
	}
	return '+'
}

// AgentError is why the home's gpg-agent could not be used, once it was
// needed; nil if it was not needed or worked.
func (r *Ring) AgentError() error {
	if r.agent == nil {
		return nil
	}
	return r.agent.err
}

// inAgentError says that k's secret part is in gpg-agent and so out of
// what pgpstream changes (export, deletion, passphrase, edits).
func (k *Key) inAgentError(what string) error {
	return fmt.Errorf("keyring: the secret part of key %s is held by gpg-agent (%s), which pgpstream does not change; %s", k.Fingerprint(), agentKeysDir, what)
}

// inGnuPGError says that k is in one of gpg's rings, which pgpstream
// does not change.
func (k *Key) inGnuPGError(what string) error {
	return fmt.Errorf("keyring: key %s is in GnuPG's %s, which pgpstream does not change; %s", k.Fingerprint(), k.from, what)
}

// gnupgTrust adds to m the owner trust gpg's trustdb.gpg gives keys m
// does not name: the keys gpg made in the home are ultimately trusted
// there, and pgpstream's own ownertrust.txt (which m was read from) has
// the last word.
//
// trustdb.gpg (GnuPG's g10/tdbio.c) is an array of 40-byte records whose
// first byte is the type. Record 0 is the version record, type 1, "gpg"
// in bytes 1 to 3. A trust record, type 12, holds a primary key's
// 20-byte fingerprint at byte 2 and its owner trust at byte 22, the low
// four bits of which are the level, numbered as OwnerTrust is.
func (r *Ring) gnupgTrust(m map[string]OwnerTrust) {
	if r.gnupg == "" {
		return
	}
	data := r.trustDB // nil unless isTrustDB (readTrustFiles)
	if data == nil {
		return
	}
	const recLen, typeTrust = 40, 12
	for off := recLen; off+recLen <= len(data); off += recLen {
		rec := data[off : off+recLen]
		if rec[0] != typeTrust {
			continue
		}
		fpr := strings.ToUpper(hex.EncodeToString(rec[2:22]))
		level := OwnerTrust(rec[22] & 0x0f)
		if _, ok := m[fpr]; !ok && level != TrustUnknown && level <= TrustUltimate {
			m[fpr] = level
		}
	}
}

// listingName is the ring file a full listing names above its keys:
// in a GnuPG home the public ring gpg uses, pubring.kbx or else
// pubring.gpg (gpg names it for secret keys too), else pgpstream's own.
func (r *Ring) listingName(secret bool) string {
	if r.gnupg != "" {
		for _, n := range []string{kbxName, gpgRingName} {
			if _, err := os.Stat(filepath.Join(r.gnupg, n)); err == nil {
				return filepath.Join(r.gnupg, n)
			}
		}
	}
	if secret {
		return filepath.Join(r.home, secringName)
	}
	return filepath.Join(r.home, pubringName)
}

// isKeybox reports whether data starts with a keybox's header blob: type
// 1 at byte 4 and the magic "KBXf" at byte 8. No OpenPGP packet starts
// so: its first byte has the high bit set, a keybox's is a length's high
// byte, zero.
func isKeybox(data []byte) bool {
	return len(data) >= 12 && data[0] == 0 && data[4] == 1 && string(data[8:12]) == "KBXf"
}

// keyboxPackets is the keys of a keybox (gpg's --keyring FILE may be
// one, and gpg --import reads one) as packets, gpg's ring-trust packets
// left out.
func keyboxPackets(data []byte) ([]rawPacket, error) {
	f, err := keybox.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	var all []byte
	for _, b := range f.Blobs {
		all = append(all, b.Packets()...)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("keyring: the keybox holds no OpenPGP key")
	}
	return splitPackets(all)
}

// agentDeleteSecret deletes from gpg-agent the secret parts it holds of
// k's primary key and subkeys, as gpg's --delete-secret-keys does (the
// agent removes its own files). Without force the agent asks its user
// first, through the pinentry, with gpg's question.
func (k *Key) agentDeleteSecret(force bool) error {
	a := k.agent
	for _, pk := range k.publicKeys() {
		if _, held := a.holds(pk, true); !held {
			continue
		}
		g, _ := a.grip(pk)
		desc := fmt.Sprintf("Do you really want to permanently delete the OpenPGP secret key:\n\"%s\"\nkey %X?", k.PrimaryUserID(), pk.Fingerprint)
		if err := a.conn.DeleteKey(g, desc, force); err != nil {
			return fmt.Errorf("keyring: deleting secret key %X failed: %w", pk.Fingerprint, err)
		}
		if a.held != nil {
			delete(a.held, g)
		} else {
			a.asked[g] = false
		}
	}
	return nil
}

// agentPasswd changes the passphrase of the (sub)keys of the key with
// full fingerprint fpr that gpg-agent holds, as gpg --passwd does (the
// agent re-protects its own files). handled is false when the key is not
// one of the agent's, for ChangePassphrase to go on with secring.pgp.
func (r *Ring) agentPasswd(fpr string, oldPass, newPass []byte) (handled bool, err error) {
	b, bang, ok := parseHexID(strings.TrimSpace(fpr))
	if !ok || bang || (len(b) != 20 && len(b) != 32) {
		return false, nil
	}
	k := r.byFingerprint(fmt.Sprintf("%X", b))
	if k == nil || k.sec != nil || !k.inAgent(true) {
		return false, nil
	}
	for _, pk := range k.publicKeys() {
		if _, held := k.agent.holds(pk, true); !held {
			continue
		}
		g, _ := k.agent.grip(pk)
		if err := k.agent.conn.Passwd(g, oldPass, newPass); err != nil {
			if errors.Is(err, agent.ErrBadPassphrase) {
				return true, fmt.Errorf("keyring: key %X: %w (%v)", pk.Fingerprint, ErrBadPassphrase, err)
			}
			return true, fmt.Errorf("keyring: key %X: %w", pk.Fingerprint, err)
		}
	}
	return true, nil
}
