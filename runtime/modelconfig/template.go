package modelconfig

import _ "embed"

// Template is the commented models.yml `troupe init` writes into a home
// where it finds nothing to configure: a local llama-server provider, and the other kinds commented out. It
// sets no default, so writing it changes no command's choice of model
// until the user says which (TestTemplateLoads).
//
//go:embed template.yml
var Template []byte
