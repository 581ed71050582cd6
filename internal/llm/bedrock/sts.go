package bedrock

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pigo-agent/pigo/internal/llm"
)

// serviceEndpoint is an AWS service's endpoint: AWS_ENDPOINT_URL_<SERVICE>, else
// AWS_ENDPOINT_URL, else the regional default (the SDK's configured endpoints).
func serviceEndpoint(m *llm.Model, envService, def string) string {
	for _, k := range []string{"AWS_ENDPOINT_URL_" + envService, "AWS_ENDPOINT_URL"} {
		if v := strings.TrimSpace(lookup(m, k)); v != "" {
			return strings.TrimRight(v, "/")
		}
	}
	return def
}

func regionalHost(service, region string) string {
	h := "https://" + service + "." + region + ".amazonaws.com"
	if strings.HasPrefix(region, "cn-") {
		h += ".cn"
	}
	return h
}

// xmlText is the text of the first <name> element in an STS answer (its few flat elements
// need no XML decoder in the binary), entities decoded.
func xmlText(doc []byte, name string) string {
	s := string(doc)
	i := strings.Index(s, "<"+name+">")
	if i < 0 {
		return ""
	}
	s = s[i+len(name)+2:]
	j := strings.Index(s, "</"+name+">")
	if j < 0 {
		return ""
	}
	return strings.TrimSpace(html.UnescapeString(s[:j]))
}

// stsCall posts one STS Query API action (signed with source unless it is empty) and reads
// the credentials of its result.
func stsCall(ctx context.Context, m *llm.Model, o *llm.Options, region string, source *Credentials, form url.Values) (Credentials, time.Time, error) {
	action := form.Get("Action")
	endpoint := serviceEndpoint(m, "STS", regionalHost("sts", region))
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return Credentials{}, time.Time{}, fmt.Errorf("STS %s: invalid endpoint %q", action, endpoint)
	}
	path := u.Path
	if path == "" {
		path = "/"
	}
	body := []byte(form.Encode())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.Scheme+"://"+u.Host+path, bytes.NewReader(body))
	if err != nil {
		return Credentials{}, time.Time{}, err
	}
	hs := []header{{"content-type", "application/x-www-form-urlencoded; charset=utf-8"}}
	if source != nil {
		hs = SignRequest(http.MethodPost, u.Host, path, "", hs, body, *source, region, "sts", time.Now())
	}
	for _, h := range hs {
		req.Header.Set(h.name, h.value)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp, err := llm.Client(o).Do(req.WithContext(ctx))
	if err != nil {
		return Credentials{}, time.Time{}, fmt.Errorf("STS %s: %v", action, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != 200 {
		if code := xmlText(data, "Code"); code != "" {
			return Credentials{}, time.Time{}, fmt.Errorf("STS %s: %s: %s", action, code, xmlText(data, "Message"))
		}
		return Credentials{}, time.Time{}, fmt.Errorf("STS %s: HTTP %d", action, resp.StatusCode)
	}
	creds := Credentials{xmlText(data, "AccessKeyId"), xmlText(data, "SecretAccessKey"), xmlText(data, "SessionToken")}
	if creds.AccessKeyID == "" || creds.SecretAccessKey == "" {
		return Credentials{}, time.Time{}, fmt.Errorf("STS %s: the answer carries no credentials", action)
	}
	exp, _ := time.Parse(time.RFC3339, xmlText(data, "Expiration"))
	return creds, exp, nil
}

// assumeRole is STS AssumeRole, signed with the source credentials.
func assumeRole(ctx context.Context, m *llm.Model, o *llm.Options, region string, source Credentials, role, session, externalID string, duration int) (Credentials, time.Time, error) {
	form := url.Values{"Action": {"AssumeRole"}, "Version": {"2011-06-15"}, "RoleArn": {role}, "RoleSessionName": {session},
		"DurationSeconds": {strconv.Itoa(duration)}}
	if externalID != "" {
		form.Set("ExternalId", externalID)
	}
	return stsCall(ctx, m, o, region, &source, form)
}

// assumeRoleWithWebIdentity is STS AssumeRoleWithWebIdentity (the token is the credential:
// the request is not signed).
func assumeRoleWithWebIdentity(ctx context.Context, m *llm.Model, o *llm.Options, region, role, session, token string) (Credentials, time.Time, error) {
	return stsCall(ctx, m, o, region, nil, url.Values{"Action": {"AssumeRoleWithWebIdentity"}, "Version": {"2011-06-15"},
		"RoleArn": {role}, "RoleSessionName": {session}, "WebIdentityToken": {token}})
}
