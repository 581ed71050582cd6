package bedrock

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

// A request the AWS SDK for JavaScript (3.1126, through pi 1.6.0) signed, captured on a
// loopback server on 2026-12-02: the model id's ':' escaped in the path (and escaped again in
// the canonical path), the SDK's own headers signed. pigo's signer must give the same
// signature for the same headers, body and time.
func TestSignMatchesSDK(t *testing.T) {
	body := []byte("{\"messages\":[{\"role\":\"user\",\"content\":[{\"text\":\"hi \u00fc\"}]}],\"system\":[{\"text\":\"You are terse.\\n\\n<cwd>\\n/tmp/bdr/home/work\\n</cwd>\"}],\"inferenceConfig\":{\"maxTokens\":126960},\"additionalModelRequestFields\":{\"reasoning_effort\":\"medium\"}}")
	cred := Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"}
	now := time.Date(2026, 12, 2, 5, 4, 38, 0, time.UTC)
	hs := []header{{"content-type", "application/json"}, {"content-length", "233"},
		{"x-amz-user-agent", "aws-sdk-js/3.1126.0 pi/1.6.0"},
		{"user-agent", "aws-sdk-js/3.1126.0 ua/2.1 os/linux#6.18.44-fc-v1045 lang/js md/nodejs#24.22.3 api/bedrock-runtime#3.1126.0 m/N,E,e pi/1.6.0"},
		{"amz-sdk-invocation-id", "6db6e80e-d8af-4035-8afe-976c68bc6006"}, {"amz-sdk-request", "attempt=1; max=3"}}
	out := SignRequest("POST", "127.0.0.1:18765", "/model/openai.gpt-oss-120b-1%3A0/converse-stream", "", hs, body, cred, "eu-central-1", "bedrock", now)
	auth := out[len(out)-1]
	want := "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20261202/eu-central-1/bedrock/aws4_request, SignedHeaders=amz-sdk-invocation-id;amz-sdk-request;content-length;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-user-agent, Signature=847210715190077a41c921716de297e163c61444cbd66a91f6a3f21954a9bc24"
	if auth.name != "authorization" || auth.value != want {
		t.Errorf("authorization\n got %s\nwant %s", auth.value, want)
	}
	var got []string
	for _, h := range out {
		got = append(got, h.name)
	}
	if s := strings.Join(got, " "); !strings.HasSuffix(s, "x-amz-date x-amz-content-sha256 authorization") {
		t.Errorf("headers %s", s)
	}
	// A session token is sent and signed.
	cred.SessionToken = "token"
	out = SignRequest("POST", "h", "/", "", nil, nil, cred, "us-east-1", "bedrock", now)
	if out[1].name != "x-amz-security-token" || !strings.Contains(out[len(out)-1].value, "x-amz-security-token") {
		t.Errorf("session token: %v", out)
	}
}

// The AWS Signature Version 4 test suite's get-vanilla-query-order-key-case and
// post-x-www-form-urlencoded cases (credentials AKIDEXAMPLE, 20150830T123600Z, us-east-1,
// service "service").
func TestSignTestSuite(t *testing.T) {
	secret := "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
	for _, tc := range []struct {
		name, method, path, query string
		hs                        map[string]string
		body, want                string
	}{
		{"get-vanilla", "GET", "/", "", map[string]string{"host": "example.amazonaws.com", "x-amz-date": "20150830T123600Z"}, "",
			"5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"},
		{"get-vanilla-query-order-key-case", "GET", "/", "Param2=value2&Param1=value1", map[string]string{"host": "example.amazonaws.com", "x-amz-date": "20150830T123600Z"}, "",
			"b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"},
	} {
		names := []string{"host", "x-amz-date"}
		sum := sha256hex([]byte(tc.body))
		creq := CanonicalRequest(tc.method, tc.path, tc.query, tc.hs, names, sum)
		if got := Signature(creq, "20150830T123600Z", "us-east-1", "service", secret); got != tc.want {
			t.Errorf("%s: %s, want %s\n%s", tc.name, got, tc.want, creq)
		}
	}
}

func TestCanonicalPath(t *testing.T) {
	for in, want := range map[string]string{
		"/model/a%3Ab/converse-stream":                   "/model/a%253Ab/converse-stream",
		"/model/arn%3Aaws%3Abedrock%2Fx/converse-stream": "/model/arn%253Aaws%253Abedrock%252Fx/converse-stream",
		"/a/./b/../c/": "/a/c/",
		"":             "/",
	} {
		if got := canonicalPath(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	if got := escape("us.anthropic.claude-sonnet-4-6:0 ()!*'/"); got != "us.anthropic.claude-sonnet-4-6%3A0%20%28%29%21%2A%27%2F" {
		t.Errorf("escape %s", got)
	}
}

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
