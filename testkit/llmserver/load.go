package llmserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"gopkg.in/yaml.v3"
)

// LoadScript reads a script file, YAML or JSON (see the package doc for
// the format).
func LoadScript(path string) (Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Script{}, fmt.Errorf("read script: %w", err)
	}
	s, err := ParseScript(data)
	if err != nil {
		return Script{}, fmt.Errorf("script %s: %w", path, err)
	}
	return s, nil
}

// ParseScript parses a script from YAML or JSON. Unknown keys are errors,
// and so are step mistakes that Start would report.
func ParseScript(data []byte) (Script, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Script{}, fmt.Errorf("parse yaml: %w", err)
	}
	if doc.Kind == 0 {
		return Script{}, errors.New("script is empty")
	}
	// The YAML is turned into JSON first so that the json tags are the one
	// definition of the format and object key order survives into tool
	// arguments.
	var buf bytes.Buffer
	if err := yamlToJSON(&buf, &doc); err != nil {
		return Script{}, err
	}
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	var s Script
	if err := dec.Decode(&s); err != nil {
		return Script{}, fmt.Errorf("decode script: %w", err)
	}
	if _, err := compile(s); err != nil {
		return Script{}, fmt.Errorf("check script: %w", err)
	}
	return s, nil
}

func yamlToJSON(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			buf.WriteString("null")
			return nil
		}
		return yamlToJSON(buf, n.Content[0])
	case yaml.AliasNode:
		return yamlToJSON(buf, n.Alias)
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := yamlToJSON(buf, c); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case yaml.MappingNode:
		buf.WriteByte('{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				return fmt.Errorf("line %d: only plain keys are supported", k.Line)
			}
			if i > 0 {
				buf.WriteByte(',')
			}
			key, err := marshal(k.Value)
			if err != nil {
				return err
			}
			buf.Write(key)
			buf.WriteByte(':')
			if err := yamlToJSON(buf, v); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case yaml.ScalarNode:
		var v any
		if err := n.Decode(&v); err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		b, err := marshal(v)
		if err != nil {
			return fmt.Errorf("line %d: %w", n.Line, err)
		}
		buf.Write(b)
		return nil
	}
	return fmt.Errorf("line %d: unsupported yaml node", n.Line)
}
