package bedrock

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// imds reads the instance role's credentials from EC2 instance metadata, IMDSv2: a session
// token (PUT /latest/api/token), the role's name, then its credentials. The endpoint is
// AWS_EC2_METADATA_SERVICE_ENDPOINT or 169.254.169.254; each call waits at most a second, as
// the SDK's.
func (c *chain) imds(ctx context.Context) (Credentials, error) {
	ep := strings.TrimRight(lookup(c.m, "AWS_EC2_METADATA_SERVICE_ENDPOINT"), "/")
	if ep == "" {
		ep = "http://169.254.169.254"
	}
	return memo("imds\x00"+ep, func() (Credentials, time.Time, error) {
		call := func(method, path string, hs map[string]string) (string, error) {
			ctx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, method, ep+path, nil)
			if err != nil {
				return "", err
			}
			for k, v := range hs {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return "", err
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			if resp.StatusCode != 200 {
				return "", fmt.Errorf("%s %s: HTTP %d", method, path, resp.StatusCode)
			}
			return string(b), nil
		}
		fail := func(err error) (Credentials, time.Time, error) {
			return Credentials{}, time.Time{}, fmt.Errorf("EC2 instance metadata: %v", err)
		}
		tok, err := call(http.MethodPut, "/latest/api/token", map[string]string{"x-aws-ec2-metadata-token-ttl-seconds": "21600"})
		if err != nil {
			return fail(err)
		}
		auth := map[string]string{"x-aws-ec2-metadata-token": strings.TrimSpace(tok)}
		roles, err := call(http.MethodGet, "/latest/meta-data/iam/security-credentials/", auth)
		if err != nil {
			return fail(err)
		}
		role := strings.TrimSpace(strings.SplitN(strings.TrimSpace(roles), "\n", 2)[0])
		if role == "" {
			return fail(fmt.Errorf("the instance has no IAM role"))
		}
		body, err := call(http.MethodGet, "/latest/meta-data/iam/security-credentials/"+role, auth)
		if err != nil {
			return fail(err)
		}
		var v struct {
			Code            string
			AccessKeyID     string `json:"AccessKeyId"`
			SecretAccessKey string
			Token           string
			Expiration      string
		}
		if json.Unmarshal([]byte(body), &v) != nil || v.AccessKeyID == "" || v.SecretAccessKey == "" || (v.Code != "" && v.Code != "Success") {
			return fail(fmt.Errorf("the role's credentials could not be read"))
		}
		exp, _ := time.Parse(time.RFC3339, v.Expiration)
		return Credentials{v.AccessKeyID, v.SecretAccessKey, v.Token}, exp, nil
	})
}
