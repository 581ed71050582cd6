package bedrock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// The AWS SDK's default credential chain, in the order pi 1.6's SDK (for JavaScript) walks it:
//  1. the environment's keys, unless AWS_PROFILE names a profile;
//  2. the profile (AWS_PROFILE or "default") in ~/.aws/config and ~/.aws/credentials: a role
//     to assume (role_arn with source_profile or credential_source, through STS AssumeRole),
//     static keys, a web identity (web_identity_token_file + role_arn), credential_process, or
//     IAM Identity Center (SSO: the cached token of `aws sso login`, refreshed when it carries a
//     refresh token, traded for the role's credentials at the portal);
//  3. a web identity from the environment (AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN);
//  4. the ECS/EKS container endpoint when its variables are set, else EC2 instance metadata
//     (IMDSv2; AWS_EC2_METADATA_DISABLED turns it off).
// A source that does not apply passes to the next; one that applies and fails (STS refuses
// the role, the SSO session expired) ends the chain with its error. Temporary credentials are
// kept for the process until five minutes before they expire. Every endpoint can be
// overridden as the SDK allows (AWS_ENDPOINT_URL_STS, AWS_ENDPOINT_URL_SSO,
// AWS_ENDPOINT_URL_SSO_OIDC, AWS_ENDPOINT_URL, AWS_EC2_METADATA_SERVICE_ENDPOINT).

// skipError is a source that does not apply: the chain goes on.
type skipError struct{ msg string }

func (e *skipError) Error() string { return e.msg }

func skip(format string, a ...any) error { return &skipError{fmt.Sprintf(format, a...)} }

func isSkip(err error) bool {
	var s *skipError
	return errors.As(err, &s)
}

// expireWindow: credentials this close to expiring are fetched again (the SDK's window).
const expireWindow = 5 * time.Minute

type cached struct {
	creds   Credentials
	expires time.Time
}

var (
	credCacheMu sync.Mutex
	credCache   = map[string]cached{}
)

// memo returns the credentials kept under key while they are valid, else fetches them and
// keeps them when they expire (credentials without an expiry are fetched each time).
func memo(key string, fetch func() (Credentials, time.Time, error)) (Credentials, error) {
	credCacheMu.Lock()
	c, ok := credCache[key]
	credCacheMu.Unlock()
	if ok && time.Until(c.expires) > expireWindow {
		return c.creds, nil
	}
	creds, exp, err := fetch()
	if err != nil {
		return Credentials{}, err
	}
	if !exp.IsZero() {
		credCacheMu.Lock()
		credCache[key] = cached{creds, exp}
		credCacheMu.Unlock()
	}
	return creds, nil
}

// chain is one walk of the credential chain for a model (its stored env first).
type chain struct {
	m      *llm.Model
	o      *llm.Options
	region string // the request's region, for STS when the profile names none
}

// chainCredentials walks the chain; region is the Bedrock request's.
func chainCredentials(ctx context.Context, m *llm.Model, o *llm.Options, region string) (Credentials, error) {
	c := &chain{m: m, o: o, region: region}
	named := lookup(m, "AWS_PROFILE") != ""
	if !named {
		if id, secret := lookup(m, "AWS_ACCESS_KEY_ID"), lookup(m, "AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
			return Credentials{id, secret, lookup(m, "AWS_SESSION_TOKEN")}, nil
		}
	}
	profile := profileName(m)
	creds, err := c.profile(ctx, profile, nil, false)
	if err == nil || !isSkip(err) {
		return creds, err
	}
	profileErr := err
	if creds, err = c.envWebIdentity(ctx); err == nil || !isSkip(err) {
		return creds, err
	}
	if creds, err = c.remote(ctx); err == nil || !isSkip(err) {
		return creds, err
	}
	if named {
		// More use than the SDK's last word: the profile the person named is not usable.
		return Credentials{}, errors.New(profileErr.Error())
	}
	return Credentials{}, errors.New("Could not load credentials from any providers")
}

func static(s map[string]string) bool {
	return s["aws_access_key_id"] != "" && s["aws_secret_access_key"] != ""
}

func ssoProfile(s map[string]string) bool {
	return s["sso_start_url"] != "" || s["sso_account_id"] != "" || s["sso_session"] != "" || s["sso_region"] != "" || s["sso_role_name"] != ""
}

// profile resolves a profile as the SDK's ini provider does. visited holds the profiles of a
// role chain so far; assume forces the role path (a source profile with a credential_source
// and no role).
func (c *chain) profile(ctx context.Context, name string, visited map[string]bool, assume bool) (Credentials, error) {
	s, err := profileSettings(c.m, name)
	if err != nil {
		return Credentials{}, err
	}
	if len(visited) > 0 && static(s) {
		return Credentials{s["aws_access_key_id"], s["aws_secret_access_key"], s["aws_session_token"]}, nil
	}
	roleWithSource := s["role_arn"] != "" && ((s["source_profile"] != "") != (s["credential_source"] != ""))
	switch {
	case assume || roleWithSource:
		return c.assumeRole(ctx, name, s, visited)
	case static(s):
		return Credentials{s["aws_access_key_id"], s["aws_secret_access_key"], s["aws_session_token"]}, nil
	case s["web_identity_token_file"] != "" && s["role_arn"] != "":
		return c.webIdentity(ctx, expand(s["web_identity_token_file"]), s["role_arn"], s["role_session_name"], c.stsRegion(s))
	case s["credential_process"] != "":
		return processCredentials(ctx, name, s["credential_process"])
	case ssoProfile(s):
		return c.sso(ctx, name, s)
	}
	return Credentials{}, skip("Could not resolve credentials using profile: [%s] in configuration/credentials file(s).", name)
}

func (c *chain) stsRegion(s map[string]string) string {
	if s["region"] != "" {
		return s["region"]
	}
	if c.region != "" {
		return c.region
	}
	return "us-east-1"
}

// assumeRole gets the source credentials (another profile, or the credential_source) and
// trades them for the role's through STS AssumeRole.
func (c *chain) assumeRole(ctx context.Context, name string, s map[string]string, visited map[string]bool) (Credentials, error) {
	src := s["source_profile"]
	if src != "" && visited[src] {
		names := make([]string, 0, len(visited))
		for n := range visited {
			names = append(names, n)
		}
		return Credentials{}, fmt.Errorf("Detected a cycle attempting to resolve credentials for profile %s. Profiles visited: %s", profileName(c.m), strings.Join(names, ", "))
	}
	var source Credentials
	var err error
	if src != "" {
		next := map[string]bool{src: true}
		for n := range visited {
			next[n] = true
		}
		ss, _ := profileSettings(c.m, src)
		source, err = c.profile(ctx, src, next, ss["role_arn"] == "" && ss["credential_source"] != "")
	} else {
		source, err = c.credentialSource(ctx, name, s["credential_source"])
	}
	if err != nil {
		if isSkip(err) {
			// The source of a role that was asked for is not there: the role cannot be assumed.
			return Credentials{}, errors.New(err.Error())
		}
		return Credentials{}, err
	}
	if s["role_arn"] == "" && s["credential_source"] != "" {
		return source, nil
	}
	if s["mfa_serial"] != "" {
		return Credentials{}, fmt.Errorf("Profile %s requires multi-factor authentication, but no MFA code callback was provided.", name)
	}
	duration := 3600
	if d, err := strconv.Atoi(s["duration_seconds"]); err == nil && d > 0 {
		duration = d
	}
	session := s["role_session_name"]
	if session == "" {
		session = fmt.Sprintf("pigo-%d", time.Now().UnixMilli())
	}
	region := c.stsRegion(s)
	key := "assume\x00" + region + "\x00" + s["role_arn"] + "\x00" + s["external_id"] + "\x00" + source.AccessKeyID + "\x00" + s["role_session_name"]
	return memo(key, func() (Credentials, time.Time, error) {
		return assumeRole(ctx, c.m, c.o, region, source, s["role_arn"], session, s["external_id"], duration)
	})
}

// credentialSource is a role's credential_source.
func (c *chain) credentialSource(ctx context.Context, profile, source string) (Credentials, error) {
	switch source {
	case "Environment":
		id, secret := lookup(c.m, "AWS_ACCESS_KEY_ID"), lookup(c.m, "AWS_SECRET_ACCESS_KEY")
		if id == "" || secret == "" {
			return Credentials{}, errors.New("Unable to find environment variable credentials.")
		}
		return Credentials{id, secret, lookup(c.m, "AWS_SESSION_TOKEN")}, nil
	case "Ec2InstanceMetadata":
		return c.imds(ctx)
	case "EcsContainer":
		return memo("container\x00"+lookup(c.m, "AWS_CONTAINER_CREDENTIALS_FULL_URI")+lookup(c.m, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"), func() (Credentials, time.Time, error) {
			return containerExpiring(ctx, c.m, c.o)
		})
	}
	return Credentials{}, fmt.Errorf("Unsupported credential source in profile %s. Got %s, expected EcsContainer or Ec2InstanceMetadata or Environment.", profile, source)
}

// envWebIdentity is the environment's web identity (EKS service accounts and the like).
func (c *chain) envWebIdentity(ctx context.Context) (Credentials, error) {
	file, role := lookup(c.m, "AWS_WEB_IDENTITY_TOKEN_FILE"), lookup(c.m, "AWS_ROLE_ARN")
	if file == "" || role == "" {
		return Credentials{}, skip("no web identity in the environment")
	}
	region := c.region
	if region == "" {
		region = "us-east-1"
	}
	return c.webIdentity(ctx, file, role, lookup(c.m, "AWS_ROLE_SESSION_NAME"), region)
}

func (c *chain) webIdentity(ctx context.Context, file, role, session, region string) (Credentials, error) {
	if session == "" {
		session = fmt.Sprintf("pigo-session-%d", time.Now().UnixMilli())
	}
	return memo("webid\x00"+region+"\x00"+role+"\x00"+file, func() (Credentials, time.Time, error) {
		tok, err := os.ReadFile(file)
		if err != nil {
			return Credentials{}, time.Time{}, fmt.Errorf("AWS web identity token file: %v", err)
		}
		// Sent as the file holds it, as the SDKs send it.
		return assumeRoleWithWebIdentity(ctx, c.m, c.o, region, role, session, string(tok))
	})
}

// remote is the container endpoint when configured, else EC2 instance metadata.
func (c *chain) remote(ctx context.Context) (Credentials, error) {
	if lookup(c.m, "AWS_CONTAINER_CREDENTIALS_FULL_URI") != "" || lookup(c.m, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") != "" {
		return c.credentialSource(ctx, "", "EcsContainer")
	}
	if v := lookup(c.m, "AWS_EC2_METADATA_DISABLED"); v != "" && v != "false" {
		return Credentials{}, skip("EC2 Instance Metadata Service access disabled")
	}
	creds, err := c.imds(ctx)
	if err != nil {
		// Not on EC2 (or no role there): the chain ends without it.
		return Credentials{}, skip("%v", err)
	}
	return creds, nil
}
