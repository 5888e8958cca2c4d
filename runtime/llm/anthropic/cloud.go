package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/anthropics/anthropic-sdk-go/v2/bedrock"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/vertex"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"golang.org/x/oauth2/google"
)

// Cloud places a Bedrock or Vertex client and names its credentials.
type Cloud struct {
	// Region is the AWS region (Bedrock) or the Google Cloud region
	// (Vertex); empty takes AWS_REGION or AWS_DEFAULT_REGION (Bedrock)
	// or VERTEX_REGION or CLOUD_ML_REGION (Vertex) from Env.
	Region string
	// Project is the Google Cloud project (Vertex); empty takes
	// VERTEX_PROJECT_ID or ANTHROPIC_VERTEX_PROJECT_ID from Env, else the
	// credentials file's.
	Project string
	// Env is the environment the credential chains read; nil means an
	// empty one.
	Env func(string) string
}

func (c Cloud) env(key string) string {
	if c.Env == nil {
		return ""
	}
	return c.Env(key)
}

// NewBedrock returns a Client of Anthropic models on Amazon Bedrock. The
// credentials are AWS's standard chain: AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (with AWS_SESSION_TOKEN) from Env when set, else
// AWS_PROFILE's shared profile, else the SDK's own chain (its files, SSO,
// instance roles). Requests are SigV4-signed, the bearer token
// AWS_BEARER_TOKEN_BEDROCK (read by the SDK itself) taking precedence.
func NewBedrock(ctx context.Context, cfg Config, cloud Cloud) (*Client, error) {
	region := firstOf(cloud.Region, cloud.env("AWS_REGION"), cloud.env("AWS_DEFAULT_REGION"))
	if region == "" {
		return nil, errors.New("bedrock needs a region: set AWS_REGION")
	}
	loads := []func(*config.LoadOptions) error{config.WithRegion(region)}
	if id, secret := cloud.env("AWS_ACCESS_KEY_ID"), cloud.env("AWS_SECRET_ACCESS_KEY"); id != "" && secret != "" {
		loads = append(loads, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(id, secret, cloud.env("AWS_SESSION_TOKEN"))))
	} else if profile := cloud.env("AWS_PROFILE"); profile != "" {
		loads = append(loads, config.WithSharedConfigProfile(profile))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, loads...)
	if err != nil {
		return nil, fmt.Errorf("load aws config: %w", err)
	}
	opts := []option.RequestOption{bedrock.WithConfig(awsCfg)}
	if cfg.BaseURL != "" {
		base, err := checkBaseURL(cfg.BaseURL)
		if err != nil {
			return nil, err
		}
		opts = append(opts, option.WithBaseURL(base))
	}
	return newClient(APIBedrock, cfg, opts...), nil
}

// cloudPlatformScope is the OAuth scope Vertex AI requests need.
const cloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// NewVertex returns a Client of Anthropic models on Google Cloud Vertex
// AI. The credentials are the file GOOGLE_APPLICATION_CREDENTIALS in Env
// names (a service account, an authorized user, or any type Google's
// client libraries take), else Google's application default credentials.
func NewVertex(ctx context.Context, cfg Config, cloud Cloud) (*Client, error) {
	region := firstOf(cloud.Region, cloud.env("VERTEX_REGION"), cloud.env("CLOUD_ML_REGION"))
	if region == "" {
		return nil, errors.New("vertex needs a region: set VERTEX_REGION")
	}
	creds, err := googleCredentials(ctx, cloud.env("GOOGLE_APPLICATION_CREDENTIALS"))
	if err != nil {
		return nil, err
	}
	project := firstOf(cloud.Project, cloud.env("VERTEX_PROJECT_ID"), cloud.env("ANTHROPIC_VERTEX_PROJECT_ID"), creds.ProjectID)
	if project == "" {
		return nil, errors.New("vertex needs a project: set VERTEX_PROJECT_ID")
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	// newClient sets the HTTP client before vertex.WithCredentials, which
	// wraps its transport with the OAuth token source.
	cfg.HTTPClient = hc
	opts := []option.RequestOption{vertex.WithCredentials(ctx, region, project, creds)}
	if cfg.BaseURL != "" {
		base, err := checkBaseURL(cfg.BaseURL)
		if err != nil {
			return nil, err
		}
		opts = append(opts, option.WithBaseURL(base))
	}
	return newClient(APIVertex, cfg, opts...), nil
}

func googleCredentials(ctx context.Context, file string) (*google.Credentials, error) {
	if file == "" {
		creds, err := google.FindDefaultCredentials(ctx, cloudPlatformScope)
		if err != nil {
			return nil, fmt.Errorf("google credentials (set GOOGLE_APPLICATION_CREDENTIALS): %w", err)
		}
		return creds, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("GOOGLE_APPLICATION_CREDENTIALS: %w", err)
	}
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("GOOGLE_APPLICATION_CREDENTIALS %s: %w", file, err)
	}
	creds, err := google.CredentialsFromJSONWithType(ctx, data, google.CredentialsType(head.Type), cloudPlatformScope)
	if err != nil {
		return nil, fmt.Errorf("GOOGLE_APPLICATION_CREDENTIALS %s: %w", file, err)
	}
	return creds, nil
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
