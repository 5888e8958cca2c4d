package modelconfig

import "slices"

// Environment variables the built-in providers read: the aionrs JSON
// stream spec's (ANTHROPIC_*, OPENAI_*, AWS_*, GOOGLE_APPLICATION_CREDENTIALS,
// VERTEX_*), pi's Gemini key (GEMINI_API_KEY), and the ones the providers'
// own SDKs read besides (AWS_DEFAULT_REGION and the AWS endpoint variables,
// GOOGLE_API_KEY and GOOGLE_GEMINI_BASE_URL for genai, GOOGLE_CLOUD_PROJECT
// and CLOUD_ML_REGION for Anthropic on Vertex).
const (
	EnvOpenAIBaseURL = "OPENAI_BASE_URL"
	EnvOpenAIAPIKey  = "OPENAI_API_KEY"

	EnvAnthropicAPIKey  = "ANTHROPIC_API_KEY"
	EnvAnthropicBaseURL = "ANTHROPIC_BASE_URL"

	EnvGeminiAPIKey  = "GEMINI_API_KEY"
	EnvGoogleAPIKey  = "GOOGLE_API_KEY"
	EnvGeminiBaseURL = "GOOGLE_GEMINI_BASE_URL"

	EnvAWSRegion          = "AWS_REGION"
	EnvAWSDefaultRegion   = "AWS_DEFAULT_REGION"
	EnvAWSAccessKeyID     = "AWS_ACCESS_KEY_ID"
	EnvAWSSecretAccessKey = "AWS_SECRET_ACCESS_KEY"
	EnvAWSProfile         = "AWS_PROFILE"
	EnvAWSEndpointBedrock = "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"
	EnvAWSEndpoint        = "AWS_ENDPOINT_URL"

	EnvGoogleCredentials  = "GOOGLE_APPLICATION_CREDENTIALS"
	EnvVertexProjectID    = "VERTEX_PROJECT_ID"
	EnvVertexRegion       = "VERTEX_REGION"
	EnvGoogleCloudProject = "GOOGLE_CLOUD_PROJECT"
	EnvCloudMLRegion      = "CLOUD_ML_REGION"
)

// Default base URLs of the native APIs, used when neither a flag,
// models.yml nor the provider's variable names one.
const (
	DefaultAnthropicBaseURL = "https://api.anthropic.com"
	DefaultGeminiBaseURL    = "https://generativelanguage.googleapis.com"
)

// The variables Bedrock's and Vertex's placement comes from, first set wins.
var (
	bedrockRegionEnv = []string{EnvAWSRegion, EnvAWSDefaultRegion}
	vertexProjectEnv = []string{EnvVertexProjectID, EnvGoogleCloudProject}
	vertexRegionEnv  = []string{EnvVertexRegion, EnvCloudMLRegion}
)

// Configured says whether the environment holds the credentials of the
// built-in provider name, so its catalog is worth offering: a key for
// anthropic and google; for openai a key for OpenAI's own endpoint (an
// OPENAI_BASE_URL elsewhere is a compatible server with its own models);
// a region and an access key or profile for bedrock; a project and region
// for vertex (whose credentials are the application default ones).
func Configured(name string, env func(string) string) bool {
	if env == nil {
		return false
	}
	set := func(names ...string) bool { v, _ := first(env, names...); return v != "" }
	switch name {
	case OpenAI:
		base, _ := first(env, EnvOpenAIBaseURL)
		return set(EnvOpenAIAPIKey) && (base == "" || trimSlash(base) == DefaultOpenAIBaseURL)
	case Anthropic:
		return set(EnvAnthropicAPIKey)
	case Google:
		return set(EnvGeminiAPIKey, EnvGoogleAPIKey)
	case Bedrock:
		return set(bedrockRegionEnv...) && set(EnvAWSAccessKeyID, EnvAWSProfile)
	case Vertex:
		return set(vertexProjectEnv...) && set(vertexRegionEnv...)
	}
	return false
}

// KeyVariables are the variables the built-in provider name reads its
// API key from, first wins; none for another name or a platform that
// signs with its credential chain.
func KeyVariables(name string) []string {
	b, _ := builtinProvider(name)
	return slices.Clone(b.keyEnv)
}

// BaseURLVariables are the variables the built-in provider name reads its
// base URL from, first wins; none for another name.
func BaseURLVariables(name string) []string {
	b, _ := builtinProvider(name)
	return slices.Clone(b.baseEnv)
}
