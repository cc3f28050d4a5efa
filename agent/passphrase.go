package agent

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
)

// More GnuPG error codes: GET_PASSPHRASE --no-ask with nothing cached
// answers GPG_ERR_NO_DATA; a pinentry the user closed, GPG_ERR_CANCELED.
const codeNoData = 58

// ErrNotCached: GET_PASSPHRASE --no-ask found nothing in the cache.
var ErrNotCached = errors.New("gpg-agent has no passphrase cached under this id")

// ErrCanceled: the user closed the pinentry (or the agent may not show one).
var ErrCanceled = errors.New("the passphrase entry was canceled")

// dialRunning connects to the home's agent only if one is running: it
// starts none (gpg's --no-autostart). A missing socket is os.ErrNotExist.
func dialRunning(home string) (*Conn, error) {
	path := socketPath(home)
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		return nil, fmt.Errorf("gpg-agent at %s: %w", path, err)
	}
	return greet(c, path)
}

// PassphraseRequest is one GET_PASSPHRASE (the agent protocol's "ask for
// a passphrase", doc/gpg-agent.texi): the agent answers from its cache
// under CacheID, or shows its pinentry and caches what the user typed.
type PassphraseRequest struct {
	// CacheID names the passphrase in the cache. gpg uses a key's
	// keygrip for a secret key and "S" with the hex of the S2K salt for
	// a symmetric passphrase; "" bypasses the cache.
	CacheID string
	Error   string // shown above the entry, e.g. after a wrong try
	Prompt  string // the entry's label ("" for the agent's default)
	Desc    string // what the passphrase is for
	// Repeat asks the pinentry to have it typed that many more times
	// (1 for a new passphrase).
	Repeat int
	// NoAsk answers from the cache only: ErrNotCached when it has none.
	NoAsk bool
	// Loopback, when set, answers in the pinentry's place (the agent's
	// loopback mode, INQUIRE PASSPHRASE): what it returns is cached as
	// the pinentry's answer would be. Without it the agent shows its
	// pinentry.
	Loopback func() ([]byte, error)
}

// GetPassphrase asks the agent for a passphrase. The answer comes in D
// lines (--data), so the passphrase never sits on a status line.
func (c *Conn) GetPassphrase(r PassphraseRequest) ([]byte, error) {
	cmd := "GET_PASSPHRASE --data"
	if r.NoAsk {
		cmd += " --no-ask"
	}
	if r.Repeat > 0 {
		cmd += fmt.Sprintf(" --repeat=%d", r.Repeat)
	}
	cmd += " " + orX(cacheArg(r.CacheID))
	// gpg-agent 2.2 wants all three texts even with --no-ask.
	cmd += " " + orX(escapeArg(r.Error)) + " " + orX(escapeArg(r.Prompt)) + " " + orX(escapeArg(r.Desc))
	if !r.NoAsk {
		mode := "ask"
		if r.Loopback != nil {
			mode = "loopback"
		}
		prev := modeOrAsk(c.mode)
		if err := c.setMode(mode); err != nil {
			return nil, err
		}
		if prev != mode {
			// The connection is shared (Session): what else it does
			// keeps the mode it was given.
			defer c.setMode(prev)
		}
	}
	prev := c.Inquire
	defer func() { c.Inquire = prev }()
	c.Inquire = func(kw, args string) ([]byte, error) {
		if kw == "PASSPHRASE" && r.Loopback != nil {
			return r.Loopback()
		}
		if prev != nil {
			return prev(kw, args)
		}
		return nil, fmt.Errorf("no answer to the agent's inquiry %s", kw)
	}
	defer c.mayAsk()()
	pass, err := c.Transact(cmd)
	if e := (*Error)(nil); errors.As(err, &e) {
		switch e.Code & 0xffff {
		case codeNoData:
			return nil, ErrNotCached
		case codeCanceled:
			return nil, ErrCanceled
		}
	}
	return pass, err
}

// ForgetPassphrase removes what the cache holds under cacheID
// (CLEAR_PASSPHRASE), as gpg does after a cached passphrase was wrong.
func (c *Conn) ForgetPassphrase(cacheID string) error {
	if cacheID == "" {
		return nil
	}
	_, err := c.Transact("CLEAR_PASSPHRASE " + cacheArg(cacheID))
	return err
}

// SymmetricCacheID is gpg's cache id for a message's passphrase: "S" and
// the hex of its S2K salt, so every message made with that S2K shares it.
func SymmetricCacheID(salt []byte) string {
	if len(salt) == 0 {
		return ""
	}
	return "S" + strings.ToUpper(hex.EncodeToString(salt))
}

// SessionEnv tells the agent where its pinentry should appear, as gpg
// does before it asks (GnuPG's common/asshelp.c, send_pinentry_environment):
// the terminal (GPG_TTY, else the one given), its type, the X display
// and the rest of GnuPG's standard session variables, among them
// PINENTRY_USER_DATA, which a non-standard pinentry reads. Options the
// agent does not know are ignored.
func (c *Conn) SessionEnv(tty string) {
	if v := os.Getenv("GPG_TTY"); v != "" {
		tty = v
	}
	send := func(name, value string) {
		if value != "" && !strings.ContainsAny(value, "\r\n") {
			c.Transact("OPTION " + name + "=" + value)
		}
	}
	send("ttyname", tty)
	for _, kv := range [][2]string{
		{"TERM", "ttytype"}, {"DISPLAY", "display"}, {"XAUTHORITY", "xauthority"},
		{"XMODIFIERS", ""}, {"WAYLAND_DISPLAY", ""}, {"XDG_SESSION_TYPE", ""}, {"QT_QPA_PLATFORM", ""},
		{"GTK_IM_MODULE", ""}, {"DBUS_SESSION_BUS_ADDRESS", ""}, {"QT_IM_MODULE", ""}, {"INSIDE_EMACS", ""},
		{"PINENTRY_USER_DATA", "pinentry-user-data"},
	} {
		v := os.Getenv(kv[0])
		if kv[1] != "" {
			send(kv[1], v)
		} else if v != "" {
			send("putenv", kv[0]+"="+v)
		}
	}
	send("lc-ctype", firstEnv("LC_ALL", "LC_CTYPE", "LANG"))
	send("lc-messages", firstEnv("LC_ALL", "LC_MESSAGES", "LANG"))
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// cacheArg escapes a cache id as the command line needs it (a keygrip
// or S-id needs nothing).
func cacheArg(id string) string { return escapeArg(id) }

func orX(s string) string {
	if s == "" {
		return "X"
	}
	return s
}
