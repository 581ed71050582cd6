package bedrock_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/pigo-agent/pigo/internal/llm"
	"github.com/pigo-agent/pigo/internal/llm/bedrock"
	"github.com/pigo-agent/pigo/internal/llm/llmtest"
)

// awsServer speaks, on 127.0.0.1, the endpoints of the AWS credential chain: STS (AssumeRole,
// checking the SigV4 signature of the source credentials; AssumeRoleWithWebIdentity, checking
// the token), the SSO portal (GetRoleCredentials with the cached access token), SSO OIDC
// (CreateToken with a refresh token), EC2 instance metadata (IMDSv2: a session token first)
// and the container credentials endpoint.
type awsServer struct {
	*httptest.Server
	t       *testing.T
	mu      sync.Mutex
	secrets map[string]string // access key → secret, for verifying signatures
	calls   []string
	refuse  bool // STS answers AccessDenied
	gen     int
}

func newAWSServer(t *testing.T) *awsServer {
	s := &awsServer{t: t, secrets: map[string]string{"AKSOURCE": "source-secret-key-1", "AKENV": "env-secret-key-22"}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *awsServer) count(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// issue makes temporary credentials whose secret the server remembers (a role's credentials
// sign the next AssumeRole of a chain).
func (s *awsServer) issue(kind string) (id, secret, token string) {
	s.gen++
	id, secret, token = fmt.Sprintf("ASIA%s%d", strings.ToUpper(kind), s.gen), fmt.Sprintf("%s-secret-%d", kind, s.gen), fmt.Sprintf("%s-session-%d", kind, s.gen)
	s.secrets[id] = secret
	return
}

func (s *awsServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	exp := time.Now().Add(time.Hour).UTC()
	xmlCreds := func(action, id, secret, tok string) {
		w.Header().Set("Content-Type", "text/xml")
		fmt.Fprintf(w, `<%sResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><%sResult><Credentials><AccessKeyId>%s</AccessKeyId><SecretAccessKey>%s</SecretAccessKey><SessionToken>%s</SessionToken><Expiration>%s</Expiration></Credentials></%sResult><ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata></%sResponse>`,
			action, action, id, secret, tok, exp.Format(time.RFC3339), action, action)
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/":
		form, _ := url.ParseQuery(string(body))
		action := form.Get("Action")
		s.calls = append(s.calls, action+" "+form.Get("RoleArn"))
		if s.refuse {
			w.WriteHeader(403)
			fmt.Fprint(w, `<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User is not authorized to perform: sts:AssumeRole</Message></Error><RequestId>r</RequestId></ErrorResponse>`)
			return
		}
		switch action {
		case "AssumeRole":
			auth := r.Header.Get("Authorization")
			key := ""
			if i := strings.Index(auth, "Credential="); i >= 0 {
				key, _, _ = strings.Cut(auth[i+len("Credential="):], "/")
			}
			if r.Header.Get("Content-Length") == "" {
				r.Header.Set("Content-Length", strconv.Itoa(len(body)))
			}
			req := llmtest.Request{Method: r.Method, Host: r.Host, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header, Body: body}
			_, scope, err := req.SigV4(s.secrets[key])
			if s.secrets[key] == "" || err != nil || !strings.HasSuffix(scope, "/sts/aws4_request") || form.Get("RoleSessionName") == "" {
				s.t.Errorf("AssumeRole not signed by a known key (%q): %v %s", key, err, scope)
				w.WriteHeader(403)
				fmt.Fprint(w, `<ErrorResponse><Error><Code>SignatureDoesNotMatch</Code><Message>bad signature</Message></Error></ErrorResponse>`)
				return
			}
			id, secret, tok := s.issue("role")
			xmlCreds("AssumeRole", id, secret, tok)
		case "AssumeRoleWithWebIdentity":
			if form.Get("WebIdentityToken") != "the-web-identity-token" || r.Header.Get("Authorization") != "" {
				w.WriteHeader(400)
				fmt.Fprint(w, `<ErrorResponse><Error><Code>InvalidIdentityToken</Code><Message>bad token</Message></Error></ErrorResponse>`)
				return
			}
			id, secret, tok := s.issue("webid")
			xmlCreds("AssumeRoleWithWebIdentity", id, secret, tok)
		default:
			w.WriteHeader(400)
		}
	case r.URL.Path == "/federation/credentials":
		q := r.URL.Query()
		s.calls = append(s.calls, "GetRoleCredentials "+q.Get("account_id")+" "+q.Get("role_name"))
		if r.Header.Get("x-amz-sso_bearer_token") != "sso-access-token" && r.Header.Get("x-amz-sso_bearer_token") != "refreshed-access-token" {
			w.Header().Set("x-amzn-errortype", "UnauthorizedException")
			w.WriteHeader(401)
			fmt.Fprint(w, `{"message":"Session token not found or invalid"}`)
			return
		}
		id, secret, tok := s.issue("sso")
		_ = json.NewEncoder(w).Encode(map[string]any{"roleCredentials": map[string]any{"accessKeyId": id, "secretAccessKey": secret, "sessionToken": tok, "expiration": exp.UnixMilli()}})
	case r.URL.Path == "/token":
		var in map[string]string
		_ = json.Unmarshal(body, &in)
		s.calls = append(s.calls, "CreateToken "+in["grantType"])
		if in["refreshToken"] != "sso-refresh-token" || in["clientId"] != "client-1" || in["clientSecret"] != "client-secret-1" {
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":"invalid_grant"}`)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"accessToken": "refreshed-access-token", "expiresIn": 3600, "refreshToken": "sso-refresh-token-2", "tokenType": "Bearer"})
	case r.URL.Path == "/latest/api/token" && r.Method == http.MethodPut:
		s.calls = append(s.calls, "IMDS token")
		if r.Header.Get("x-aws-ec2-metadata-token-ttl-seconds") == "" {
			w.WriteHeader(400)
			return
		}
		w.Header().Set("x-aws-ec2-metadata-token-ttl-seconds", r.Header.Get("x-aws-ec2-metadata-token-ttl-seconds"))
		fmt.Fprint(w, "imds-session-token")
	case strings.HasPrefix(r.URL.Path, "/latest/meta-data/iam/security-credentials/"):
		if r.Header.Get("x-aws-ec2-metadata-token") != "imds-session-token" {
			w.WriteHeader(401)
			return
		}
		role := strings.TrimPrefix(r.URL.Path, "/latest/meta-data/iam/security-credentials/")
		if role == "" {
			fmt.Fprint(w, "instance-role")
			return
		}
		s.calls = append(s.calls, "IMDS credentials "+role)
		id, secret, tok := s.issue("imds")
		_ = json.NewEncoder(w).Encode(map[string]any{"Code": "Success", "Type": "AWS-HMAC", "AccessKeyId": id, "SecretAccessKey": secret, "Token": tok,
			"Expiration": exp.Format(time.RFC3339), "LastUpdated": time.Now().UTC().Format(time.RFC3339)})
	case r.URL.Path == "/container/creds":
		s.calls = append(s.calls, "container")
		if r.Header.Get("Authorization") != "container-auth" {
			w.WriteHeader(401)
			return
		}
		id, secret, tok := s.issue("ecs")
		_ = json.NewEncoder(w).Encode(map[string]any{"AccessKeyId": id, "SecretAccessKey": secret, "Token": tok, "Expiration": exp.Format(time.RFC3339)})
	default:
		http.NotFound(w, r)
	}
}

func ssoCacheFile(home, id string) string {
	sum := sha1.Sum([]byte(id))
	return filepath.Join(home, ".aws", "sso", "cache", hex.EncodeToString(sum[:])+".json")
}

type chainCase struct {
	name   string
	env    map[string]string // process environment
	stored map[string]string // the stored credential's env (pi's scoped AWS_PROFILE)
	files  map[string]string // under HOME
	prefix string            // the access key's prefix pigo must end with
	calls  map[string]int    // server calls (by prefix) one resolution makes
	err    string
	// notSDK: pi's SDK (for JavaScript) refreshes an SSO token five minutes before it
	// expires, the Go SDK only once it has: not compared with the Go SDK.
	notSDK bool
}

func chainCases(srv *awsServer, home string) []chainCase {
	fresh := time.Now().Add(2 * time.Hour).UTC().Format(time.RFC3339)
	stale := time.Now().Add(time.Minute).UTC().Format(time.RFC3339)
	past := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
	sts := map[string]string{"AWS_ENDPOINT_URL_STS": srv.URL, "AWS_REGION": "us-east-1"}
	with := func(a map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range a {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	return []chainCase{
		{name: "role with a source profile", env: with(sts, "AWS_PROFILE", "admin"),
			files: map[string]string{".aws/config": "[profile admin]\nrole_arn = arn:aws:iam::123456789012:role/Admin\nsource_profile = base\nrole_session_name = me\n",
				".aws/credentials": "[base]\naws_access_key_id = AKSOURCE\naws_secret_access_key = source-secret-key-1\n"},
			prefix: "ASIAROLE", calls: map[string]int{"AssumeRole arn:aws:iam::123456789012:role/Admin": 1}},
		{name: "a chain of roles", env: with(sts, "AWS_PROFILE", "top"),
			files: map[string]string{".aws/config": "[profile top]\nrole_arn = arn:aws:iam::1:role/Top\nsource_profile = mid\n[profile mid]\nrole_arn = arn:aws:iam::1:role/Mid\nsource_profile = base\n",
				".aws/credentials": "[base]\naws_access_key_id = AKSOURCE\naws_secret_access_key = source-secret-key-1\n"},
			prefix: "ASIAROLE", calls: map[string]int{"AssumeRole arn:aws:iam::1:role/Mid": 1, "AssumeRole arn:aws:iam::1:role/Top": 1}},
		// A profile in the process environment loses to the environment's keys in pi (#6957); a
		// profile stored with the credential wins.
		{name: "role with the environment as credential_source", env: with(sts, "AWS_ACCESS_KEY_ID", "AKENV", "AWS_SECRET_ACCESS_KEY", "env-secret-key-22"),
			stored: map[string]string{"AWS_PROFILE": "ci"},
			files:  map[string]string{".aws/config": "[profile ci]\nrole_arn = arn:aws:iam::1:role/Ci\ncredential_source = Environment\n"},
			prefix: "ASIAROLE", calls: map[string]int{"AssumeRole": 1}},
		{name: "role with instance metadata as credential_source", env: with(sts, "AWS_PROFILE", "ec2", "AWS_EC2_METADATA_SERVICE_ENDPOINT", srv.URL+"/", "AWS_EC2_METADATA_DISABLED", ""),
			files:  map[string]string{".aws/config": "[profile ec2]\nrole_arn = arn:aws:iam::1:role/FromEc2\ncredential_source = Ec2InstanceMetadata\n"},
			prefix: "ASIAROLE", calls: map[string]int{"IMDS credentials instance-role": 1, "AssumeRole": 1}},
		{name: "web identity from the environment", env: with(sts, "AWS_WEB_IDENTITY_TOKEN_FILE", filepath.Join(home, "token"), "AWS_ROLE_ARN", "arn:aws:iam::1:role/Eks"),
			files:  map[string]string{"token": "the-web-identity-token"},
			prefix: "ASIAWEBID", calls: map[string]int{"AssumeRoleWithWebIdentity arn:aws:iam::1:role/Eks": 1}},
		{name: "web identity in a profile", env: with(sts, "AWS_PROFILE", "wi"),
			files:  map[string]string{".aws/config": "[profile wi]\nrole_arn = arn:aws:iam::1:role/Wi\nweb_identity_token_file = " + filepath.Join(home, "token") + "\n", "token": "the-web-identity-token"},
			prefix: "ASIAWEBID", calls: map[string]int{"AssumeRoleWithWebIdentity arn:aws:iam::1:role/Wi": 1}},
		{name: "instance metadata (IMDSv2)", env: map[string]string{"AWS_PROFILE": "", "AWS_EC2_METADATA_SERVICE_ENDPOINT": srv.URL, "AWS_EC2_METADATA_DISABLED": "", "AWS_REGION": "us-east-1"},
			prefix: "ASIAIMDS", calls: map[string]int{"IMDS token": 1, "IMDS credentials instance-role": 1}},
		{name: "container endpoint with a token file", env: map[string]string{"AWS_CONTAINER_CREDENTIALS_FULL_URI": srv.URL + "/container/creds",
			"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE": filepath.Join(home, "ecs-token"), "AWS_REGION": "us-east-1"},
			files: map[string]string{"ecs-token": "container-auth"}, prefix: "ASIAECS", calls: map[string]int{"container": 1}},
		{name: "SSO session with a valid cached token", env: map[string]string{"AWS_PROFILE": "dev", "AWS_ENDPOINT_URL_SSO": srv.URL, "AWS_REGION": "us-east-1"},
			files: map[string]string{".aws/config": "[profile dev]\nsso_session = corp\nsso_account_id = 111122223333\nsso_role_name = Developer\n[sso-session corp]\nsso_start_url = https://corp.awsapps.com/start\nsso_region = us-east-1\n",
				strings.TrimPrefix(ssoCacheFile(home, "corp"), home+"/"): `{"startUrl":"https://corp.awsapps.com/start","region":"us-east-1","accessToken":"sso-access-token","expiresAt":"` + fresh + `"}`},
			prefix: "ASIASSO", calls: map[string]int{"GetRoleCredentials 111122223333 Developer": 1}},
		{name: "SSO session token refreshed", env: map[string]string{"AWS_PROFILE": "dev", "AWS_ENDPOINT_URL_SSO": srv.URL, "AWS_ENDPOINT_URL_SSO_OIDC": srv.URL, "AWS_REGION": "us-east-1"},
			files: map[string]string{".aws/config": "[profile dev]\nsso_session = corp\nsso_account_id = 111122223333\nsso_role_name = Developer\n[sso-session corp]\nsso_start_url = https://corp.awsapps.com/start\nsso_region = us-east-1\n",
				strings.TrimPrefix(ssoCacheFile(home, "corp"), home+"/"): `{"startUrl":"https://corp.awsapps.com/start","region":"us-east-1","accessToken":"old-access-token","expiresAt":"` + stale +
					`","clientId":"client-1","clientSecret":"client-secret-1","registrationExpiresAt":"` + fresh + `","refreshToken":"sso-refresh-token"}`},
			notSDK: true, prefix: "ASIASSO", calls: map[string]int{"CreateToken refresh_token": 1, "GetRoleCredentials": 1}},
		{name: "SSO session token expired, refreshed", env: map[string]string{"AWS_PROFILE": "dev", "AWS_ENDPOINT_URL_SSO": srv.URL, "AWS_ENDPOINT_URL_SSO_OIDC": srv.URL, "AWS_REGION": "us-east-1"},
			files: map[string]string{".aws/config": "[profile dev]\nsso_session = corp\nsso_account_id = 111122223333\nsso_role_name = Developer\n[sso-session corp]\nsso_start_url = https://corp.awsapps.com/start\nsso_region = us-east-1\n",
				strings.TrimPrefix(ssoCacheFile(home, "corp"), home+"/"): `{"startUrl":"https://corp.awsapps.com/start","region":"us-east-1","accessToken":"old-access-token","expiresAt":"` + past +
					`","clientId":"client-1","clientSecret":"client-secret-1","registrationExpiresAt":"` + fresh + `","refreshToken":"sso-refresh-token"}`},
			prefix: "ASIASSO", calls: map[string]int{"CreateToken refresh_token": 1, "GetRoleCredentials": 1}},
		{name: "legacy SSO profile", env: map[string]string{"AWS_PROFILE": "old", "AWS_ENDPOINT_URL_SSO": srv.URL, "AWS_REGION": "us-east-1"},
			files: map[string]string{".aws/config": "[profile old]\nsso_start_url = https://corp.awsapps.com/start\nsso_region = us-east-1\nsso_account_id = 111122223333\nsso_role_name = Reader\n",
				strings.TrimPrefix(ssoCacheFile(home, "https://corp.awsapps.com/start"), home+"/"): `{"startUrl":"https://corp.awsapps.com/start","region":"us-east-1","accessToken":"sso-access-token","expiresAt":"` + fresh + `"}`},
			prefix: "ASIASSO", calls: map[string]int{"GetRoleCredentials 111122223333 Reader": 1}},
		{name: "expired legacy SSO token", env: map[string]string{"AWS_PROFILE": "old", "AWS_ENDPOINT_URL_SSO": srv.URL, "AWS_REGION": "us-east-1"},
			files: map[string]string{".aws/config": "[profile old]\nsso_start_url = https://x/start\nsso_region = us-east-1\nsso_account_id = 1\nsso_role_name = R\n",
				strings.TrimPrefix(ssoCacheFile(home, "https://x/start"), home+"/"): `{"accessToken":"sso-access-token","expiresAt":"2020-01-01T00:00:00Z"}`},
			err: "The SSO session associated with this profile has expired. To refresh this SSO session run 'aws sso login' with the corresponding profile."},
		{name: "a cycle of source profiles", env: with(sts, "AWS_PROFILE", "a"),
			files: map[string]string{".aws/config": "[profile a]\nrole_arn = arn:aws:iam::1:role/A\nsource_profile = b\n[profile b]\nrole_arn = arn:aws:iam::1:role/B\nsource_profile = a\n"},
			err:   "Detected a cycle attempting to resolve credentials for profile a"},
		{name: "an unknown credential_source", env: with(sts, "AWS_PROFILE", "x"),
			files: map[string]string{".aws/config": "[profile x]\nrole_arn = arn:aws:iam::1:role/X\ncredential_source = Magic\n"},
			err:   "Unsupported credential source in profile x. Got Magic, expected EcsContainer or Ec2InstanceMetadata or Environment."},
		{name: "MFA", env: with(sts, "AWS_PROFILE", "mfa"),
			files: map[string]string{".aws/config": "[profile mfa]\nrole_arn = arn:aws:iam::1:role/M\nsource_profile = base\nmfa_serial = arn:aws:iam::1:mfa/me\n",
				".aws/credentials": "[base]\naws_access_key_id = AKSOURCE\naws_secret_access_key = source-secret-key-1\n"},
			err: "Profile mfa requires multi-factor authentication"},
		{name: "instance metadata disabled", env: map[string]string{"AWS_EC2_METADATA_SERVICE_ENDPOINT": srv.URL}, err: "Could not load credentials from any providers"},
	}
}

// Every source of the AWS SDK's chain pigo speaks, against the loopback endpoints: the
// credentials the request is signed with, the calls made once (the second resolution uses the
// kept credentials), the SDK's texts for what is wrong.
func TestCredentialChain(t *testing.T) {
	for i := range chainCases(newAWSServer(t), "") {
		home := clearAWS(t)
		srv := newAWSServer(t)
		tc := chainCases(srv, home)[i]
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			for p, body := range tc.files {
				writeFile(t, filepath.Join(home, p), body)
			}
			m := &llm.Model{Provider: "amazon-bedrock", ID: "m", API: bedrock.API, BaseURL: "https://bedrock-runtime.us-east-1.amazonaws.com", Env: tc.stored}
			got, err := bedrock.Resolve(context.Background(), m, nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(got.Creds.AccessKeyID, tc.prefix) || got.Creds.SecretAccessKey == "" || got.Creds.SessionToken == "" {
				t.Fatalf("credentials %+v", got.Creds)
			}
			for call, n := range tc.calls {
				if srv.count(call) != n {
					t.Errorf("%d× %q, want %d: %q", srv.count(call), call, n, srv.calls)
				}
			}
			again, err := bedrock.Resolve(context.Background(), m, nil)
			if err != nil || again.Creds != got.Creds {
				t.Errorf("a second resolution did not reuse the kept credentials: %v %+v", err, again.Creds)
			}
			for call, n := range tc.calls {
				if srv.count(call) != n {
					t.Errorf("after a second resolution %d× %q", srv.count(call), call)
				}
			}
			if strings.HasPrefix(tc.name, "SSO session token") && strings.Contains(tc.name, "refreshed") {
				data, _ := os.ReadFile(ssoCacheFile(home, "corp"))
				if !strings.Contains(string(data), `"accessToken": "refreshed-access-token"`) || !strings.Contains(string(data), `"refreshToken": "sso-refresh-token-2"`) ||
					!strings.Contains(string(data), `"clientSecret": "client-secret-1"`) {
					t.Errorf("the refreshed token was not written back:\n%s", data)
				}
			}
		})
	}
}

// A refused AssumeRole is said with STS's code and message, and no secret of the source.
func TestAssumeRoleRefused(t *testing.T) {
	home := clearAWS(t)
	srv := newAWSServer(t)
	srv.refuse = true
	t.Setenv("AWS_ENDPOINT_URL_STS", srv.URL)
	t.Setenv("AWS_PROFILE", "admin")
	t.Setenv("AWS_REGION", "eu-west-1")
	writeFile(t, filepath.Join(home, ".aws/config"), "[profile admin]\nrole_arn = arn:aws:iam::1:role/Admin\nsource_profile = base\n")
	writeFile(t, filepath.Join(home, ".aws/credentials"), "[base]\naws_access_key_id = AKSOURCE\naws_secret_access_key = source-secret-key-1\n")
	_, err := bedrock.Resolve(context.Background(), &llm.Model{Provider: "amazon-bedrock", ID: "m", API: bedrock.API}, nil)
	if err == nil || !strings.Contains(err.Error(), "STS AssumeRole: AccessDenied: User is not authorized to perform: sts:AssumeRole") {
		t.Fatalf("%v", err)
	}
	if strings.Contains(err.Error(), "source-secret-key-1") || strings.Contains(err.Error(), "AKSOURCE") {
		t.Errorf("a secret in the error: %v", err)
	}
}

// The AWS SDK for Go as the oracle: the same environment and profile files resolve, in its
// default chain (config.LoadDefaultConfig), to credentials from the same source as pigo's
// (the loopback server issues distinct keys per call, so the sources are compared by the
// calls each made and the key's kind).
func TestCredentialChainMatchesSDK(t *testing.T) {
	for i, tc := range chainCases(newAWSServer(t), "") {
		if tc.err != "" || tc.notSDK {
			continue
		}
		home := clearAWS(t)
		srv := newAWSServer(t)
		tc = chainCases(srv, home)[i]
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			for p, body := range tc.files {
				writeFile(t, filepath.Join(home, p), body)
			}
			t.Setenv("AWS_CONFIG_FILE", filepath.Join(home, ".aws/config"))
			t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(home, ".aws/credentials"))
			got, err := bedrock.Resolve(context.Background(), &llm.Model{Provider: "amazon-bedrock", ID: "m", API: bedrock.API, Env: tc.stored}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for p, body := range tc.files { // pigo wrote a refreshed SSO token back: the SDK starts where pigo did
				writeFile(t, filepath.Join(home, p), body)
			}
			pigoCalls := append([]string(nil), srv.calls...)
			srv.mu.Lock()
			srv.calls = nil
			srv.mu.Unlock()
			var opts []func(*config.LoadOptions) error
			if p := tc.stored["AWS_PROFILE"]; p != "" {
				opts = append(opts, config.WithSharedConfigProfile(p)) // pi passes a stored profile to the SDK
			}
			cfg, err := config.LoadDefaultConfig(context.Background(), opts...)
			if err != nil {
				t.Fatalf("sdk config: %v", err)
			}
			sdk, err := cfg.Credentials.Retrieve(context.Background())
			if err != nil {
				t.Fatalf("sdk: %v (pigo: %s)", err, got.Creds.AccessKeyID)
			}
			kind := func(id string) string { return strings.TrimRight(id, "0123456789") }
			if kind(sdk.AccessKeyID) != kind(got.Creds.AccessKeyID) || sdk.SessionToken == "" {
				t.Errorf("sdk %s, pigo %s", sdk.AccessKeyID, got.Creds.AccessKeyID)
			}
			norm := func(calls []string) []string {
				var out []string
				for _, c := range calls {
					if c != "IMDS token" { // the SDK asks for the metadata token once per call
						out = append(out, c)
					}
				}
				return out
			}
			if strings.Join(norm(pigoCalls), "|") != strings.Join(norm(srv.calls), "|") {
				t.Errorf("calls: pigo %q, sdk %q", pigoCalls, srv.calls)
			}
		})
	}
}
