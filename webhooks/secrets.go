package webhooks

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// sealedPrefix starts a secret stored encrypted: "enc:v1:<key id>:<base64 of nonce and ciphertext>".
const sealedPrefix = "enc:v1:"

// SecretBox encrypts subscription secrets at rest with AES-256-GCM under the operator's key
// (SWITCHBOARD_WEBHOOK_SECRET_KEY). The subscription ID is the additional data, so a sealed secret copied onto
// another row does not open. A nil *SecretBox stores secrets as given (and still opens none sealed).
type SecretBox struct {
	aead  cipher.AEAD
	keyID string // first bytes of the key's SHA-256: says which key sealed a secret, never the key
}

// ParseSecretKey reads an operator key: 32 bytes as base64 (standard or URL alphabet, padded or not) or as 64
// hex digits.
func ParseSecretKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if k, err := hex.DecodeString(s); err == nil && len(k) == 32 {
		return k, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil && len(k) == 32 {
			return k, nil
		}
	}
	return nil, errors.New("want 32 random bytes as base64 or 64 hex digits (for example: openssl rand -base64 32)")
}

// NewSecretBox returns a box over a 32-byte key.
func NewSecretBox(key []byte) (*SecretBox, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("webhooks: secret key must be 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("webhooks: secret key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("webhooks: secret key: %w", err)
	}
	sum := sha256.Sum256(key)
	return &SecretBox{aead: aead, keyID: hex.EncodeToString(sum[:4])}, nil
}

// Seal returns what is stored for the secret of subscription id: sealed with a fresh random nonce, or the
// secret itself when b is nil.
func (b *SecretBox) Seal(id, secret string) (string, error) {
	if b == nil {
		return secret, nil
	}
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("webhooks: sealing a secret: %w", err)
	}
	out := b.aead.Seal(nonce, nonce, []byte(secret), []byte(id))
	return sealedPrefix + b.keyID + ":" + base64.RawStdEncoding.EncodeToString(out), nil
}

// Open returns the secret of subscription id from what is stored. A secret stored in plain text (before a key
// was set) is returned as it is; a sealed one needs the key that sealed it.
func (b *SecretBox) Open(id, stored string) (string, error) {
	rest, sealed := strings.CutPrefix(stored, sealedPrefix)
	if !sealed {
		return stored, nil
	}
	if b == nil {
		return "", errors.New("the secret is encrypted and no secret key is set (SWITCHBOARD_WEBHOOK_SECRET_KEY)")
	}
	keyID, data, ok := strings.Cut(rest, ":")
	if !ok || keyID != b.keyID {
		return "", errors.New("the secret was encrypted with another secret key")
	}
	raw, err := base64.RawStdEncoding.DecodeString(data)
	if err != nil || len(raw) < b.aead.NonceSize() {
		return "", errors.New("the stored secret is damaged")
	}
	plain, err := b.aead.Open(nil, raw[:b.aead.NonceSize()], raw[b.aead.NonceSize():], []byte(id))
	if err != nil {
		return "", errors.New("the stored secret does not open with this key")
	}
	return string(plain), nil
}

// IsSealed reports whether a stored secret is encrypted.
func IsSealed(stored string) bool { return strings.HasPrefix(stored, sealedPrefix) }
