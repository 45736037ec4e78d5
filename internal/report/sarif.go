package report

import (
	"io"
	"iter"
	"path/filepath"

	"github.com/ccdag/ccdag/internal/check"
	"github.com/ccdag/ccdag/internal/fspath"
)

// SARIF 2.1.0, the subset code-scanning tools read.
type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	Level            string          `json:"level"`
	Message          sarifMessage    `json:"message"`
	Locations        []sarifLocation `json:"locations"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
}

type sarifLocation struct {
	ID               int           `json:"id,omitempty"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          *sarifMessage `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation struct {
		URI string `json:"uri"`
	} `json:"artifactLocation"`
	Region sarifRegion `json:"region"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

// descriptions are the rules' one-line summaries.
var descriptions = map[check.Code]string{
	check.InvalidJSON:             "A line is not valid JSON",
	check.IncompleteLastLine:      "The last line is still being written",
	check.NotAnObject:             "A line is JSON but not an object",
	check.MissingUUID:             "A user, assistant or system record has no uuid",
	check.DuplicateUUID:           "A uuid is defined twice in the session",
	check.Orphan:                  "parentUuid names no record of the session",
	check.ParentCycle:             "Following parentUuid comes back to the same record",
	check.ParentAfterChild:        "parentUuid names a record written later in the file",
	check.UnresolvedLogicalParent: "A compaction's logicalParentUuid names no record",
	check.UnmatchedToolUse:        "A tool_use block has no tool_result",
	check.UnmatchedToolResult:     "A tool_result answers no tool_use",
	check.DuplicateToolResult:     "Two tool_result blocks answer the same tool_use",
	check.DuplicateToolUseID:      "Two tool_use blocks share an id",
	check.MissingAgentFile:        "A sub-agent's log is not where Claude Code writes it",
	check.NotJSONL:                "The file is not JSON Lines at all",
	check.InvalidField:            "A field holds the wrong JSON type, an implausible number or an implausible date",
}

func sarifLevel(sev string) string {
	switch sev {
	case "error":
		return "error"
	case "warning":
		return "warning"
	}
	return "note"
}

func fileURI(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = p
	}
	return fspath.Host.URI(abs)
}

func location(uri string, line, col, endLine, endCol int) sarifLocation {
	var l sarifLocation
	l.PhysicalLocation.ArtifactLocation.URI = uri
	l.PhysicalLocation.Region = sarifRegion{StartLine: line, StartColumn: col, EndLine: endLine, EndColumn: endCol}
	return l
}

// WriteSARIF prints a SARIF 2.1.0 log with one run, its results written as items yields them (as
// WriteJSON does: a million findings are never held at once).
func WriteSARIF(w io.Writer, items iter.Seq[Item], toolVersion string) error {
	var tool sarifTool
	tool.Driver = sarifDriver{Name: "ccdag", Version: toolVersion, InformationURI: "https://github.com/ccdag/ccdag"}
	for _, c := range check.Codes() {
		r := sarifRule{ID: string(c), ShortDescription: sarifMessage{descriptions[c]}}
		r.DefaultConfiguration.Level = sarifLevel(check.Defaults[c].String())
		tool.Driver.Rules = append(tool.Driver.Rules, r)
	}
	uris := map[string]string{} // a few files, many findings each
	uri := func(p string) string {
		u, ok := uris[p]
		if !ok {
			u = fileURI(p)
			uris[p] = u
		}
		return u
	}
	p := newPieces(w, true)
	p.text("{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n      \"tool\": ")
	p.value("      ", &tool)
	p.text(",\n      \"results\": ")
	array(p, "      ", items, func(it Item) any {
		res := sarifResult{RuleID: it.Code, Level: sarifLevel(it.Severity), Message: sarifMessage{it.Message},
			Locations: []sarifLocation{location(uri(it.Path), it.Line, it.Column, it.EndLine, it.EndColumn)}}
		for i, r := range it.Related {
			l := location(uri(r.Path), r.Line, r.Column, 0, 0)
			l.ID = i + 1
			l.Message = &sarifMessage{r.Message}
			res.RelatedLocations = append(res.RelatedLocations, l)
		}
		return &res
	})
	p.text("\n    }\n  ]\n}\n")
	return p.err
}
