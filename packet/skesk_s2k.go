package packet

// S2K describes an SKESK's string-to-key specifier (RFC 9580 §3.7): its
// type (0 simple, 1 salted, 3 iterated and salted, 4 Argon2), its hash
// (0 for Argon2) and its salt (8 octets, 16 for Argon2; none for simple).
// gpg names a message's passphrase in gpg-agent's cache by this salt and
// reports type and hash in NEED_PASSPHRASE_SYM.
func (s *SKESK) S2K() (mode, hash byte, salt []byte) {
	spec := s.s2k()
	if len(spec) < 1 {
		return 0, 0, nil
	}
	mode = spec[0]
	switch mode {
	case 0:
		if len(spec) >= 2 {
			hash = spec[1]
		}
	case 1, 3:
		if len(spec) >= 10 {
			hash, salt = spec[1], spec[2:10:10]
		}
	case 4:
		if len(spec) >= 17 {
			salt = spec[1:17:17]
		}
	}
	return mode, hash, salt
}

// SessionKeyMode says how the SKESK holds the session key, as gpg names
// it: "CFB" for a v4 SKESK with an encrypted session key, the AEAD mode
// ("OCB", "EAX", "GCM") for v5 and v6, and "" for a v4 SKESK whose S2K
// output is the session key itself.
func (s *SKESK) SessionKeyMode() string {
	switch s.Version {
	case 5:
		if len(s.body) > 2 {
			return AEADAlgo(s.body[2]).String()
		}
	case 6:
		if len(s.body) > 3 {
			return AEADAlgo(s.body[3]).String()
		}
	case 4:
		spec := s.s2k()
		if len(spec) == 0 {
			return ""
		}
		n := map[byte]int{0: 2, 1: 10, 3: 11, 4: 20}[spec[0]]
		if n > 0 && len(spec) > n {
			return "CFB"
		}
	}
	return ""
}
