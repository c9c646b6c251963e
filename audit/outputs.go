package audit

// OutputFormats are the renderings a spec may ask for beside report.json. The list stays in
// the root, not with the spec (audit/spec), because package reports reads it and may not
// import anything above the root.
var OutputFormats = []string{"json", "md", "html", "pdf"}
