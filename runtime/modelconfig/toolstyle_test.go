package modelconfig

import "testing"

func TestParseToolStyle(t *testing.T) {
	tests := []struct {
		in      string
		want    ToolStyle
		wantErr string
	}{
		{"", ToolStyleAuto, ""},
		{"auto", ToolStyleAuto, ""},
		{"native", ToolStyleNative, ""},
		{"text", ToolStyleText, ""},
		{"json", "", `tool_style "json": want native, text or auto`},
		{"Native", "", `tool_style "Native": want native, text or auto`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseToolStyle(tt.in)
			if tt.wantErr != "" {
				requireError(t, err, tt.wantErr)
				return
			}
			requireNoError(t, err)
			requireEqual(t, got, tt.want)
		})
	}
}
