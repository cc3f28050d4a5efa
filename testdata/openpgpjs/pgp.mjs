#!/usr/bin/env node
// pgp.mjs: a small command line around OpenPGP.js, so that pgpstream's
// testscript scripts (cmd/pgpstream/testdata/openpgpjs) can run it as a
// peer the way they run gpg, rnp and sq.
//
//   node pgp.mjs generate --uid UID [--v6] [--type ecc|curve25519|curve448|rsa]
//                         [--seipdv2] [--passphrase PW [--argon2]]
//                         --public FILE --secret FILE
//   node pgp.mjs encrypt  [--recipient CERT]... [--password PW] [--sign KEY]
//                         [--key-passphrase PW] [--cipher aes128|aes192|aes256]
//                         [--aead ocb|gcm|eax|none] [--chunk-size-byte N]
//                         [--argon2] [--tag20] [--compress zip|zlib]
//                         [--text] [--armor] --in FILE --out FILE
//   node pgp.mjs decrypt  [--key KEY]... [--key-passphrase PW] [--password PW]
//                         [--verify CERT]... --in FILE --out FILE
//   node pgp.mjs sign     --key KEY [--key-passphrase PW] [--armor] --in FILE --out FILE
//   node pgp.mjs verify   --verify CERT --in FILE [--out FILE]
//
// encrypt: without --aead, OpenPGP.js picks what the recipients' keys
// announce (SEIPD v2 only if every key has the seipdv2 feature), as an
// application using it would. With --aead, the session key is made here
// with the given cipher and AEAD mode, which forces SEIPD v2 (or v1 with
// --aead none) whatever the keys say; pgpstream's keys do not announce
// every mode, and the point is to exercise each one.
//
// decrypt and verify describe on stderr what they read ("openpgpjs: PKESK
// v6, SEIPD v2 AES128 OCB chunk-size-byte 16") so scripts can check what
// pgpstream wrote. A signature that does not verify is an error (exit 1).
import { readFileSync, writeFileSync } from 'node:fs';
import { webcrypto } from 'node:crypto';
import { parseArgs } from 'node:util';
import * as openpgp from 'openpgp';

const { enums } = openpgp;

const keySizes = { aes128: 16, aes192: 24, aes256: 32 };

function die(msg) {
  process.stderr.write(`openpgpjs: error: ${msg}\n`);
  process.exit(1);
}

function note(msg) {
  process.stderr.write(`openpgpjs: ${msg}\n`);
}

// readBytes returns a file's contents and whether it is armored.
function readBytes(file) {
  const b = readFileSync(file);
  const armored = b.subarray(0, 64).toString('latin1').includes('-----BEGIN PGP');
  return { bytes: new Uint8Array(b.buffer, b.byteOffset, b.length), armored };
}

async function readCerts(files) {
  const out = [];
  for (const f of files ?? []) {
    const { bytes, armored } = readBytes(f);
    const keys = armored
      ? await openpgp.readKeys({ armoredKeys: Buffer.from(bytes).toString('utf8') })
      : await openpgp.readKeys({ binaryKeys: bytes });
    out.push(...keys);
  }
  return out;
}

async function readSecretKeys(files, passphrase) {
  const out = [];
  for (const f of files ?? []) {
    const { bytes, armored } = readBytes(f);
    const keys = armored
      ? await openpgp.readPrivateKeys({ armoredKeys: Buffer.from(bytes).toString('utf8') })
      : await openpgp.readPrivateKeys({ binaryKeys: bytes });
    for (const k of keys) {
      out.push(k.isDecrypted() ? k : await openpgp.decryptKey({ privateKey: k, passphrase }));
    }
  }
  return out;
}

async function readMessage(file) {
  const { bytes, armored } = readBytes(file);
  return armored
    ? openpgp.readMessage({ armoredMessage: Buffer.from(bytes).toString('utf8') })
    : openpgp.readMessage({ binaryMessage: bytes });
}

function name(enumObj, v) {
  try {
    return enums.read(enumObj, v).toUpperCase();
  } catch {
    return String(v);
  }
}

// describe names the packets that protect the data, before decryption.
function describe(msg) {
  const parts = [];
  for (const p of msg.packets) {
    switch (p.constructor.tag) {
      case enums.packet.publicKeyEncryptedSessionKey:
        parts.push(`PKESK v${p.version}`);
        break;
      case enums.packet.symEncryptedSessionKey:
        parts.push(`SKESK v${p.version} ${p.s2k?.type ?? ''}`.trimEnd()); // type: 'iterated', 'argon2'
        break;
      case enums.packet.symEncryptedIntegrityProtectedData:
        if (p.version === 2) {
          parts.push(`SEIPD v2 ${name(enums.symmetric, p.cipherAlgorithm)} ${name(enums.aead, p.aeadAlgorithm)} chunk-size-byte ${p.chunkSizeByte}`);
        } else {
          parts.push(`SEIPD v${p.version}`);
        }
        break;
      case enums.packet.aeadEncryptedData:
        parts.push('AEAD (tag 20)');
        break;
      case enums.packet.symmetricallyEncryptedData:
        parts.push('SED (tag 9)');
        break;
      case enums.packet.onePassSignature:
        parts.push('one-pass signature');
        break;
      case enums.packet.literalData:
        parts.push('literal data');
        break;
      default:
        parts.push(`packet tag ${p.constructor.tag}`);
    }
  }
  note(parts.join(', '));
}

async function reportSignatures(signatures) {
  if (signatures.length === 0) die('no signature');
  for (const s of signatures) {
    await s.verified; // throws on a bad or unverifiable signature
    const sig = await s.signature;
    const pkt = sig.packets[0];
    note(`good v${pkt.version} signature by ${s.keyID.toHex().toUpperCase()} (${name(enums.hash, pkt.hashAlgorithm)})`);
  }
}

// encryptTag20 writes LibrePGP's AEAD Encrypted Data packet (tag 20, what
// GnuPG 2.4 writes), behind a PKESK v3. OpenPGP.js 6 still reads this
// packet but its encrypt() no longer writes it, so the message is put
// together here from the packet classes it exports.
async function encryptTag20(message, encryptionKeys, o, config) {
  if (!encryptionKeys.length || o.password || o.sign) die('--tag20 takes only --recipient');
  const algorithm = o.cipher ?? 'aes128';
  if (!keySizes[algorithm]) die(`unknown cipher ${algorithm}`);
  const data = webcrypto.getRandomValues(new Uint8Array(keySizes[algorithm]));
  const out = await openpgp.encryptSessionKey({ data, algorithm, encryptionKeys, format: 'object' });
  const pkt = new openpgp.AEADEncryptedDataPacket();
  pkt.aeadAlgorithm = enums.write(enums.aead, o.aead ?? 'ocb');
  pkt.packets = message.packets;
  await pkt.encrypt(enums.write(enums.symmetric, algorithm), data, { ...openpgp.config, ...config });
  out.packets.push(pkt);
  return collect(o.armor ? out.armor() : out.write());
}

// collect reads to the end what the packet classes return: bytes, a string,
// or (from the AEAD code) a stream.
async function collect(x) {
  if (typeof x === 'string' || x instanceof Uint8Array) return x;
  const reader = x.getReader();
  const chunks = [];
  for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
  return typeof chunks[0] === 'string' ? chunks.join('') : Buffer.concat(chunks);
}

const commands = {
  async generate(o) {
    if (!o.uid) die('generate needs --uid');
    const m = /^(.*?)\s*<(.+)>$/.exec(o.uid);
    const userIDs = [m ? { name: m[1], email: m[2] } : { name: o.uid }];
    const type = o.type ?? (o.v6 ? 'curve25519' : 'ecc');
    // --seipdv2 makes the key announce SEIPD v2 and AEAD cipher suites and,
    // with --passphrase, protects the secret key with AEAD.
    const config = { v6Keys: !!o.v6, aeadProtect: !!o.seipdv2 };
    if (o.argon2) config.s2kType = enums.s2k.argon2;
    const { privateKey, publicKey } = await openpgp.generateKey({
      type, userIDs, passphrase: o.passphrase, format: 'armored', config,
    });
    writeFileSync(o.secret, privateKey);
    writeFileSync(o.public, publicKey);
  },

  async encrypt(o) {
    const encryptionKeys = await readCerts(o.recipient);
    const signingKeys = await readSecretKeys(o.sign, o['key-passphrase']);
    const config = {};
    if (o['chunk-size-byte'] !== undefined) config.aeadChunkSizeByte = Number(o['chunk-size-byte']);
    if (o.argon2) {
      config.s2kType = enums.s2k.argon2;
      config.aeadProtect = true; // Argon2 needs SKESK v6 (RFC 9580 section 3.7.2.1)
    }
    if (o.cipher) config.preferredSymmetricAlgorithm = enums.write(enums.symmetric, o.cipher);
    let sessionKey;
    if (o.aead) {
      const algorithm = o.cipher ?? 'aes128';
      if (!keySizes[algorithm]) die(`unknown cipher ${algorithm}`);
      sessionKey = {
        data: webcrypto.getRandomValues(new Uint8Array(keySizes[algorithm])),
        algorithm,
        aeadAlgorithm: o.aead === 'none' ? undefined : o.aead,
      };
      if (o.aead !== 'none') {
        config.aeadProtect = true; // SKESK v6 for --password
        config.preferredAEADAlgorithm = enums.write(enums.aead, o.aead);
      }
    }
    if (o.compress) config.preferredCompressionAlgorithm = enums.write(enums.compression, o.compress);
    const { bytes } = readBytes(o.in);
    const message = o.text
      ? await openpgp.createMessage({ text: Buffer.from(bytes).toString('utf8') })
      : await openpgp.createMessage({ binary: bytes, format: 'binary' });
    if (o.tag20) {
      writeFileSync(o.out, await encryptTag20(message, encryptionKeys, o, config));
      return;
    }
    const out = await openpgp.encrypt({
      message,
      encryptionKeys,
      signingKeys,
      passwords: o.password,
      sessionKey,
      format: o.armor ? 'armored' : 'binary',
      config,
    });
    writeFileSync(o.out, out);
  },

  async decrypt(o) {
    const message = await readMessage(o.in);
    describe(message);
    const decryptionKeys = await readSecretKeys(o.key, o['key-passphrase']);
    const verificationKeys = await readCerts(o.verify);
    const { data, signatures } = await openpgp.decrypt({
      message,
      decryptionKeys,
      passwords: o.password,
      verificationKeys,
      format: 'binary',
    });
    if (verificationKeys.length) await reportSignatures(signatures);
    writeFileSync(o.out, data);
  },

  async sign(o) {
    const signingKeys = await readSecretKeys(o.key, o['key-passphrase']);
    const { bytes } = readBytes(o.in);
    const message = await openpgp.createMessage({ binary: bytes, format: 'binary' });
    const out = await openpgp.sign({ message, signingKeys, format: o.armor ? 'armored' : 'binary' });
    writeFileSync(o.out, out);
  },

  async verify(o) {
    const message = await readMessage(o.in);
    describe(message);
    const verificationKeys = await readCerts(o.verify);
    const { data, signatures } = await openpgp.verify({ message, verificationKeys, format: 'binary' });
    await reportSignatures(signatures);
    if (o.out) writeFileSync(o.out, data);
  },
};

const [cmd, ...rest] = process.argv.slice(2);
if (!commands[cmd]) die(`usage: pgp.mjs ${Object.keys(commands).join('|')} [flags]`);
const { values } = parseArgs({
  args: rest,
  options: {
    uid: { type: 'string' },
    type: { type: 'string' },
    v6: { type: 'boolean' },
    aead: { type: 'string' },
    seipdv2: { type: 'boolean' },
    tag20: { type: 'boolean' },
    compress: { type: 'string' },
    text: { type: 'boolean' },
    argon2: { type: 'boolean' },
    passphrase: { type: 'string' },
    public: { type: 'string' },
    secret: { type: 'string' },
    recipient: { type: 'string', multiple: true },
    password: { type: 'string', multiple: true },
    sign: { type: 'string', multiple: true },
    key: { type: 'string', multiple: true },
    verify: { type: 'string', multiple: true },
    'key-passphrase': { type: 'string' },
    cipher: { type: 'string' },
    'chunk-size-byte': { type: 'string' },
    armor: { type: 'boolean' },
    in: { type: 'string' },
    out: { type: 'string' },
  },
});
try {
  await commands[cmd](values);
} catch (err) {
  die(err.message);
}
