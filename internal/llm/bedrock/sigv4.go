package bedrock

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Credentials are AWS credentials for Signature Version 4.
type Credentials struct {
	AccessKeyID, SecretAccessKey, SessionToken string
}

// signed are the headers a signed request carries, in the order they are sent.
type signed struct {
	headers []header
}

type header struct{ name, value string }

// SignRequest is Signature Version 4 as AWS's SDKs compute it for a non-S3 service: the
// canonical request (the path's segments escaped once more, the query sorted, every header
// given except the ones SDKs never sign, the payload's SHA-256), the string to sign over the
// scope date/region/service/aws4_request, and the HMAC chain from "AWS4"+secret. It returns
// the headers to send: x-amz-date, x-amz-security-token (with a session token),
// x-amz-content-sha256 and Authorization, after the given ones.
func SignRequest(method, host, path, rawQuery string, hs []header, payload []byte, cred Credentials, region, service string, now time.Time) []header {
	sum := sha256.Sum256(payload)
	payloadHash := hex.EncodeToString(sum[:])
	amzDate := now.UTC().Format("20060102T150405Z")
	out := append([]header(nil), hs...)
	out = append(out, header{"x-amz-date", amzDate})
	if cred.SessionToken != "" {
		out = append(out, header{"x-amz-security-token", cred.SessionToken})
	}
	out = append(out, header{"x-amz-content-sha256", payloadHash})
	canon, signedNames := canonicalHeaders(append([]header{{"host", host}}, out...))
	creq := strings.Join([]string{method, canonicalPath(path), canonicalQuery(rawQuery), canon, signedNames, payloadHash}, "\n")
	scope := amzDate[:8] + "/" + region + "/" + service + "/aws4_request"
	sig := Signature(creq, amzDate, region, service, cred.SecretAccessKey)
	return append(out, header{"authorization", fmt.Sprintf("AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s", cred.AccessKeyID, scope, signedNames, sig)})
}

// CanonicalRequest is the canonical request of a received request for the headers it signed
// (tests verify signatures with it).
func CanonicalRequest(method, path, rawQuery string, hs map[string]string, signedNames []string, payloadHash string) string {
	var list []header
	for _, n := range signedNames {
		list = append(list, header{n, hs[n]})
	}
	canon, names := canonicalHeaders(list)
	return strings.Join([]string{method, canonicalPath(path), canonicalQuery(rawQuery), canon, names, payloadHash}, "\n")
}

// Signature is the signature of a canonical request.
func Signature(creq, amzDate, region, service, secret string) string {
	scope := amzDate[:8] + "/" + region + "/" + service + "/aws4_request"
	h := sha256.Sum256([]byte(creq))
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(h[:])
	key := hmacSHA256([]byte("AWS4"+secret), amzDate[:8])
	key = hmacSHA256(key, region)
	key = hmacSHA256(key, service)
	key = hmacSHA256(key, "aws4_request")
	return hex.EncodeToString(hmacSHA256(key, toSign))
}

func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// unsignable are the headers AWS's SDKs leave out of a signature.
var unsignable = map[string]bool{"authorization": true, "cache-control": true, "connection": true, "expect": true, "from": true,
	"keep-alive": true, "max-forwards": true, "pragma": true, "referer": true, "te": true, "trailer": true,
	"transfer-encoding": true, "upgrade": true, "user-agent": true, "x-amzn-trace-id": true}

func canonicalHeaders(hs []header) (canon, names string) {
	vals := map[string]string{}
	for _, h := range hs {
		n := strings.ToLower(h.name)
		if unsignable[n] {
			continue
		}
		vals[n] = strings.Join(strings.Fields(h.value), " ")
	}
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + ":" + vals[k] + "\n")
	}
	return b.String(), strings.Join(keys, ";")
}

// canonicalPath normalizes the (already escaped) path's segments and escapes it again, '/'
// kept, as the SDKs do for every service but S3.
func canonicalPath(path string) string {
	var segs []string
	for _, s := range strings.Split(path, "/") {
		switch s {
		case "", ".":
		case "..":
			if len(segs) > 0 {
				segs = segs[:len(segs)-1]
			}
		default:
			segs = append(segs, s)
		}
	}
	p := strings.Join(segs, "/")
	if strings.HasPrefix(path, "/") {
		p = "/" + p
	}
	if len(segs) > 0 && strings.HasSuffix(path, "/") {
		p += "/"
	}
	if p == "" {
		p = "/"
	}
	return strings.ReplaceAll(escape(p), "%2F", "/")
}

func canonicalQuery(raw string) string {
	if raw == "" {
		return ""
	}
	type kv struct{ k, v string }
	var pairs []kv
	for _, part := range strings.Split(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		pairs = append(pairs, kv{escape(unescape(k)), escape(unescape(v))})
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i].k != pairs[j].k {
			return pairs[i].k < pairs[j].k
		}
		return pairs[i].v < pairs[j].v
	})
	out := make([]string, len(pairs))
	for i, p := range pairs {
		out[i] = p.k + "=" + p.v
	}
	return strings.Join(out, "&")
}

func unescape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if v, err := hex.DecodeString(s[i+1 : i+3]); err == nil {
				b.WriteByte(v[0])
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// escape is JavaScript's encodeURIComponent with !'()* escaped too (the SDKs' strict escape):
// only A-Z a-z 0-9 - _ . ~ stay as they are.
func escape(s string) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexd[c>>4])
		b.WriteByte(hexd[c&15])
	}
	return b.String()
}
