package tofu

import (
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the SQLite engine, pure Go: tofu.db is gpg's format
)

// FileName is the history's file in the home, as gpg names it.
const FileName = "tofu.db"

// DB is an open tofu.db. Its methods take the current time from the
// caller, so --faked-system-time reaches the history as it reaches gpg's.
type DB struct {
	db   *sql.DB
	path string
	keys Keys
	// Default is the policy an auto binding takes (--tofu-default-policy);
	// Auto, the zero value's replacement in Open, is marginal.
	Default Policy
}

// Open opens (creating it if need be) the history at path. utks are the
// key IDs (16 hex digits) of the keys trusted ultimately: when they are
// not those the file last saw, every cached effective policy is dropped,
// as gpg drops them, since a key's new ultimate signer may make it good.
func Open(path string, keys Keys, utks []string) (*DB, error) {
	// busy_timeout: another gpg or pgpstream writing waits up to 5 s,
	// gpg's wait; immediate: a transaction takes the write lock when it
	// begins, so two writers queue instead of deadlocking on the upgrade.
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("TOFU database %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	d := &DB{db: db, path: path, keys: keys, Default: Auto}
	if err := d.update(func(tx *sql.Tx) error {
		if err := initSchema(tx); err != nil {
			return err
		}
		return checkUTKs(tx, utks)
	}); err != nil {
		db.Close()
		return nil, err
	}
	return d, nil
}

// Close closes the file.
func (d *DB) Close() error { return d.db.Close() }

// update runs f in one transaction, committed when f returns nil.
func (d *DB) update(f func(tx *sql.Tx) error) error {
	tx, err := d.db.Begin()
	if err != nil {
		return d.wrap(err)
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return d.wrap(err)
	}
	return d.wrap(tx.Commit())
}

func (d *DB) wrap(err error) error {
	if err == nil {
		return nil
	}
	var de dbError
	if errors.As(err, &de) {
		return err
	}
	return dbError{path: d.path, err: err}
}

// dbError names the file a database failure is in.
type dbError struct {
	path string
	err  error
}

func (e dbError) Error() string { return fmt.Sprintf("TOFU database %s: %v", e.path, e.err) }
func (e dbError) Unwrap() error { return e.err }

// initSchema creates gpg's version 1 schema in a new file, in gpg's
// order (effective_policy and encryptions came later and are added as
// gpg adds them, so either program opens a file the other made), or
// checks an existing file's version.
func initSchema(tx *sql.Tx) error {
	var tables int
	if err := tx.QueryRow(`select count(*) from sqlite_master where type='table'`).Scan(&tables); err != nil {
		return err
	}
	if tables != 0 {
		var v int
		if err := tx.QueryRow(`select version from version`).Scan(&v); err != nil {
			return fmt.Errorf("reading its version: %w", err)
		}
		if v != 1 {
			return fmt.Errorf("version %d, where 1 was expected", v)
		}
	} else {
		stmts := []string{
			`create table version (version INTEGER)`,
			`insert into version values (1)`,
			fmt.Sprintf(`create table bindings
 (oid INTEGER PRIMARY KEY AUTOINCREMENT,
  fingerprint TEXT, email TEXT, user_id TEXT, time INTEGER,
  policy INTEGER CHECK (policy in (%d, %d, %d, %d, %d)),
  conflict STRING,
  unique (fingerprint, email))`, Auto, Good, Unknown, Bad, Ask),
			`create index bindings_fingerprint_email on bindings (fingerprint, email)`,
			`create index bindings_email on bindings (email)`,
			`create table signatures  (binding INTEGER NOT NULL, sig_digest TEXT,  origin TEXT, sig_time INTEGER, time INTEGER,  primary key (binding, sig_digest, origin))`,
		}
		for _, s := range stmts {
			if _, err := tx.Exec(s); err != nil {
				return fmt.Errorf("creating its tables: %w", err)
			}
		}
	}
	if _, err := tx.Exec(`create table if not exists encryptions (binding INTEGER NOT NULL,  time INTEGER)`); err != nil {
		return err
	}
	if _, err := tx.Exec(`create index if not exists encryptions_binding on encryptions (binding)`); err != nil {
		return err
	}
	var hasEffective int
	if err := tx.QueryRow(`select count(*) from pragma_table_info('bindings') where name = 'effective_policy'`).Scan(&hasEffective); err != nil {
		return err
	}
	if hasEffective == 0 {
		if _, err := tx.Exec(fmt.Sprintf(`alter table bindings add column effective_policy INTEGER DEFAULT %d CHECK (effective_policy in (%d, %d, %d, %d, %d, %d))`,
			None, None, Auto, Good, Unknown, Bad, Ask)); err != nil {
			return err
		}
	}
	return nil
}

// checkUTKs compares the ultimately trusted keys with those the file
// recorded and, when they differ, forgets every cached effective policy
// and records the new set (gpg's check_utks).
func checkUTKs(tx *sql.Tx, utks []string) error {
	if _, err := tx.Exec(`create table if not exists ultimately_trusted_keys (keyid)`); err != nil {
		return err
	}
	rows, err := tx.Query(`select keyid from ultimately_trusted_keys`)
	if err != nil {
		return err
	}
	var known []string
	for rows.Next() {
		var k sql.NullString
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			return err
		}
		known = append(known, k.String)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	want := slices.Clone(utks)
	slices.Sort(want)
	want = slices.Compact(want)
	slices.Sort(known)
	if slices.Equal(known, want) {
		return nil
	}
	if _, err := tx.Exec(`update bindings set effective_policy = ?`, None); err != nil {
		return err
	}
	if _, err := tx.Exec(`delete from ultimately_trusted_keys`); err != nil {
		return err
	}
	for _, k := range want {
		if _, err := tx.Exec(`insert into ultimately_trusted_keys values (?)`, k); err != nil {
			return err
		}
	}
	return nil
}

// binding is one row of bindings, as the policy reads it.
type binding struct {
	found     bool
	policy    Policy
	conflict  string // the fingerprint this binding conflicts with, or ""
	effective Policy // cached effective policy; None: to be computed
}

func readBinding(tx *sql.Tx, fpr, email string) (binding, error) {
	var b binding
	var pol, eff sql.NullInt64
	var conflict sql.NullString
	err := tx.QueryRow(`select policy, conflict, effective_policy from bindings where fingerprint = ? and email = ?`, fpr, email).
		Scan(&pol, &conflict, &eff)
	if errors.Is(err, sql.ErrNoRows) {
		return binding{}, nil
	}
	if err != nil {
		return b, err
	}
	b = binding{found: true, policy: Policy(pol.Int64), conflict: conflict.String, effective: Policy(eff.Int64)}
	if !b.policy.valid() {
		return b, fmt.Errorf("binding <%s, %s> has policy %d, not 1 to 5 (the file is damaged)", fpr, email, pol.Int64)
	}
	if b.effective != None && !b.effective.valid() {
		return b, fmt.Errorf("binding <%s, %s> has effective policy %d, not 0 to 5 (the file is damaged)", fpr, email, eff.Int64)
	}
	return b, nil
}

// recordBinding inserts or replaces the binding, keeping its oid (which
// signatures and encryptions refer to). With setConflict false the
// recorded conflict is kept.
func recordBinding(tx *sql.Tx, fpr, email, uid string, policy, effective Policy, conflict string, setConflict bool, now time.Time) error {
	_, err := tx.Exec(`insert or replace into bindings
 (oid, fingerprint, email, user_id, time, policy, conflict, effective_policy)
 values (
  (select oid from bindings where fingerprint = ? and email = ?),
  ?, ?, ?, ?, ?,
  case ? when 0 then (select conflict from bindings where fingerprint = ? and email = ?) else ? end,
  ?)`,
		fpr, email, fpr, email, uid, now.Unix(), int(policy),
		setConflict, fpr, email, conflict, int(effective))
	return err
}

// policy is the effective policy of the binding <fpr, email>, recorded
// (and the binding with it, when new) as gpg's get_policy records it.
// When it is Ask, conflicts are the bindings of the same address that
// conflict with it, fpr first.
func (d *DB) policy(tx *sql.Tx, fpr, uid, email string, now time.Time) (eff Policy, conflicts []string, err error) {
	b, err := readBinding(tx, fpr, email)
	if err != nil {
		return None, nil, err
	}
	// A cached policy stands unless a conflict was recorded: the
	// conflicting key may since have been cross-signed, which changes
	// this binding, not that key's.
	if b.effective != None && b.conflict == "" {
		return b.effective, nil, nil
	}
	conflict := b.conflict
	switch {
	case b.found && b.policy != Auto:
		eff = b.policy // set by the user
	case d.keys.Ultimate(fpr), d.keys.SignedByUltimate(fpr, email):
		eff = Good
	default:
		if conflicts, err = d.conflictSet(tx, fpr, email); err != nil {
			return None, nil, err
		}
		eff, conflict = Auto, ""
		if len(conflicts) > 1 {
			eff, conflict = Ask, conflicts[1]
		}
	}
	if eff != Ask {
		conflict = ""
	}
	if !b.found || eff != b.effective || conflict != b.conflict {
		p := b.policy
		if !b.found {
			p = Auto
		}
		if err := recordBinding(tx, fpr, email, uid, p, eff, conflict, true, now); err != nil {
			return None, nil, err
		}
	}
	if eff != Ask {
		return eff, nil, nil
	}
	if conflicts == nil {
		if conflicts, err = d.conflictSet(tx, fpr, email); err != nil {
			return None, nil, err
		}
	}
	return eff, conflicts, nil
}

// conflictSet is fpr and the keys bound to the same address that
// conflict with it: all of them, less those cross-signed with fpr or with
// a key cross-signed with fpr (gpg's build_conflict_set).
func (d *DB) conflictSet(tx *sql.Tx, fpr, email string) ([]string, error) {
	rows, err := tx.Query(`select distinct fingerprint from bindings where email = ? and fingerprint != ? order by fingerprint`, email, fpr)
	if err != nil {
		return nil, err
	}
	set := []string{fpr}
	for rows.Next() {
		var f sql.NullString
		if err := rows.Scan(&f); err != nil {
			rows.Close()
			return nil, err
		}
		set = append(set, f.String)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(set) == 1 {
		return set, nil
	}
	same := make([]bool, len(set))
	for i := range set {
		if i != 0 && !same[i] {
			continue
		}
		for j := i + 1; j < len(set); j++ {
			if !same[j] && d.keys.CrossSigned(set[i], set[j], email) {
				same[j] = true
			}
		}
	}
	out := set[:1]
	for i := 1; i < len(set); i++ {
		if !same[i] {
			out = append(out, set[i])
		}
	}
	return out, nil
}

// trust is what the binding <fpr, email> is worth, recording the binding
// and, when it conflicts, marking the bindings it conflicts with for
// their policy to be computed again (gpg's get_trust, which here never
// asks). policy is the binding's effective policy, the default policy's
// when auto.
func (d *DB) trust(tx *sql.Tx, fpr, email, uid string, now time.Time) (Trust, Policy, []string, error) {
	p, conflicts, err := d.policy(tx, fpr, uid, email, now)
	if err != nil {
		return TrustUndefined, None, nil, err
	}
	if d.keys.Ultimate(fpr) {
		return TrustUltimate, Good, nil, nil
	}
	if p == Auto {
		p = d.Default
		if p == Ask {
			conflicts = []string{fpr}
		}
	}
	if p != Ask {
		return trustOf(p, d.Default), p, nil, nil
	}
	for _, other := range conflicts[1:] {
		if _, err := tx.Exec(`update bindings set effective_policy = ?, conflict = ? where email = ? and fingerprint = ? and effective_policy != ?`,
			None, fpr, email, other, Ask); err != nil {
			return TrustUndefined, p, nil, err
		}
	}
	return TrustUndefined, p, conflicts, nil
}

// Binding is what the history says of one user ID of a key, as a
// verification reports it (gpg's TOFU_USER and TOFU_STATS lines).
type Binding struct {
	UserID, Email string
	// Policy is the binding's effective policy, the default policy
	// when that is auto; Trust what it makes the binding worth.
	Policy Policy
	Trust  Trust
	Stats  Stats
	// Conflicts, when Policy is Ask, are the bindings of Email that
	// conflict, this key's first.
	Conflicts []Conflict
}

// Conflict is one key bound to an address in conflict, and its history
// with it.
type Conflict struct {
	Fingerprint string
	Stats       Stats
}

// Validity is the key's validity from the bindings of uids (gpg's
// tofu_get_validity): never when none of them is unexpired; else the
// best of them, as gpg keeps it (a binding worth never makes the key
// never, until a later user ID's is better). The bindings say what each
// user ID's history is.
func (d *DB) Validity(fpr string, uids []UserID, now time.Time) (Trust, []Binding, error) {
	var out []Binding
	t := TrustUnknown
	valid := 0
	err := d.update(func(tx *sql.Tx) error {
		out = nil
		t, valid = TrustUnknown, 0
		for _, u := range uids {
			b, err := d.binding(tx, fpr, u.Name, now)
			if err != nil {
				return err
			}
			tl := b.Trust
			if u.Expired {
				tl = TrustExpired
			}
			switch {
			case tl == TrustExpired:
			case tl == TrustNever:
				t = TrustNever
				valid++
			default:
				valid++
				t = max(t, tl)
			}
			out = append(out, b)
		}
		return nil
	})
	if err != nil {
		return TrustUndefined, nil, err
	}
	if valid == 0 {
		return TrustNever, out, nil
	}
	return t, out, nil
}

// binding is the trust of fpr's binding with uid, and its history.
func (d *DB) binding(tx *sql.Tx, fpr, uid string, now time.Time) (Binding, error) {
	b := Binding{UserID: uid, Email: Email(uid)}
	var conflicts []string
	var err error
	b.Trust, b.Policy, conflicts, err = d.trust(tx, fpr, b.Email, uid, now)
	if err != nil {
		return b, err
	}
	if b.Stats, err = stats(tx, fpr, b.Email); err != nil {
		return b, err
	}
	if b.Policy == Ask {
		for _, c := range conflicts {
			s, err := stats(tx, c, b.Email)
			if err != nil {
				return b, err
			}
			b.Conflicts = append(b.Conflicts, Conflict{Fingerprint: c, Stats: s})
		}
	}
	return b, nil
}

// Policy is the effective policy of the binding of fpr and uid, as a tfs
// record shows it, recording the binding when new.
func (d *DB) Policy(fpr, uid string, now time.Time) (Policy, error) {
	var p Policy
	err := d.update(func(tx *sql.Tx) error {
		var err error
		p, _, err = d.policy(tx, fpr, uid, Email(uid), now)
		return err
	})
	return p, err
}

// RegisterSignature records a verified signature by fpr with each of
// uids (the key's user IDs the signature may be from), once: a signature
// seen again, by its digest and creation time, is not counted again.
// digest is the signature's hash value; origin says where it came from
// (gpg's "unknown" when nobody said).
func (d *DB) RegisterSignature(fpr string, uids []UserID, digest []byte, sigTime time.Time, origin string, now time.Time) error {
	if origin == "" {
		origin = "unknown"
	}
	sd := base64.RawStdEncoding.EncodeToString(digest)
	return d.update(func(tx *sql.Tx) error {
		for _, u := range uids {
			email := Email(u.Name)
			if _, _, _, err := d.trust(tx, fpr, email, u.Name, now); err != nil {
				return err
			}
			var seen int
			if err := tx.QueryRow(`select count(*) from signatures left join bindings on signatures.binding = bindings.oid
 where fingerprint = ? and email = ? and sig_time = ? and sig_digest = ?`, fpr, email, sigTime.Unix(), sd).Scan(&seen); err != nil {
				return err
			}
			if seen > 0 {
				continue
			}
			if _, err := tx.Exec(`insert into signatures (binding, sig_digest, origin, sig_time, time)
 values ((select oid from bindings where fingerprint = ? and email = ?), ?, ?, ?, ?)`,
				fpr, email, sd, origin, sigTime.Unix(), now.Unix()); err != nil {
				return err
			}
		}
		return nil
	})
}

// RegisterEncryption records a message encrypted to fpr, with each of
// uids (the key's user IDs that are not revoked).
func (d *DB) RegisterEncryption(fpr string, uids []UserID, now time.Time) error {
	return d.update(func(tx *sql.Tx) error {
		for _, u := range uids {
			email := Email(u.Name)
			if _, _, _, err := d.trust(tx, fpr, email, u.Name, now); err != nil {
				return err
			}
			if _, err := tx.Exec(`insert into encryptions (binding, time) values ((select oid from bindings where fingerprint = ? and email = ?), ?)`,
				fpr, email, now.Unix()); err != nil {
				return err
			}
		}
		return nil
	})
}

// SetPolicy sets the policy of fpr's bindings with uids (its user IDs
// that are not revoked; an expired one's expiry may change). The
// effective policy is computed again when next asked. It returns each
// binding's policy before, None for a binding that was new.
func (d *DB) SetPolicy(fpr string, uids []string, p Policy, now time.Time) ([]Policy, error) {
	if !p.valid() {
		return nil, fmt.Errorf("cannot set TOFU policy %v", p)
	}
	var old []Policy
	err := d.update(func(tx *sql.Tx) error {
		old = old[:0]
		for _, uid := range uids {
			b, err := readBinding(tx, fpr, Email(uid))
			if err != nil {
				return err
			}
			old = append(old, b.policy)
			if err := recordBinding(tx, fpr, Email(uid), uid, p, None, "", false, now); err != nil {
				return err
			}
		}
		return nil
	})
	return old, err
}

// KeyChanged forgets the cached effective policies of fpr's bindings:
// the key changed (an import added a user ID or a certification), and
// what it is worth with it must be computed again.
func (d *DB) KeyChanged(fpr string) error {
	return d.update(func(tx *sql.Tx) error {
		_, err := tx.Exec(`update bindings set effective_policy = ? where fingerprint = ?`, None, fpr)
		return err
	})
}

// Stats is the history of the binding of fpr and email.
func (d *DB) Stats(fpr, email string) (Stats, error) {
	s, err := stats(d.db, fpr, email)
	return s, d.wrap(err)
}

// querier is a transaction or the database.
type querier interface {
	QueryRow(query string, args ...any) *sql.Row
}

func stats(q querier, fpr, email string) (Stats, error) {
	var s Stats
	table := func(t string, count, first, last, days *int64) error {
		if err := q.QueryRow(`select count(*), coalesce(min(`+t+`.time), 0), coalesce(max(`+t+`.time), 0)
 from `+t+` left join bindings on `+t+`.binding = bindings.oid where fingerprint = ? and email = ?`, fpr, email).
			Scan(count, first, last); err != nil {
			return err
		}
		return q.QueryRow(`select count(*) from (select round(`+t+`.time / (24 * 60 * 60)) day from `+t+`
 left join bindings on `+t+`.binding = bindings.oid where fingerprint = ? and email = ? group by day)`, fpr, email).Scan(days)
	}
	if err := table("signatures", &s.Signatures, &s.FirstSignature, &s.LastSignature, &s.SignatureDays); err != nil {
		return s, err
	}
	err := table("encryptions", &s.Encryptions, &s.FirstEncryption, &s.LastEncryption, &s.EncryptionDays)
	return s, err
}

// KeyID is the key ID a fingerprint ends in, as the file lists the
// ultimately trusted keys: 16 upper-case hex digits.
func KeyID(fpr string) string {
	fpr = strings.ToUpper(fpr)
	if len(fpr) == 64 { // a v6 fingerprint: its key ID is the first 8 octets
		return fpr[:16]
	}
	if len(fpr) < 16 {
		return fpr
	}
	return fpr[len(fpr)-16:]
}
