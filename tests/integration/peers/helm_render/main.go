// helm_render renders a Helm chart's templates with the few functions the
// E-Navigator chart uses (include, indent, nindent, quote), for
// tests/integration/test_packaging.sh: Helm itself is not packaged for
// Debian and cannot be fetched here.  Values come as JSON (converted from
// values.yaml by the test).  Output: the rendered documents, "---"
// separated, template files in name order, empty ones left out.
//
//	helm_render CHART_DIR VALUES_JSON
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"
)

func indent(n int, s string) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: helm_render CHART_DIR VALUES_JSON")
		os.Exit(2)
	}
	raw, err := os.ReadFile(os.Args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var values map[string]interface{}
	if err := json.Unmarshal(raw, &values); err != nil {
		fmt.Fprintln(os.Stderr, "values:", err)
		os.Exit(1)
	}
	root := template.New("chart").Option("missingkey=error")
	funcs := template.FuncMap{
		"indent":  indent,
		"nindent": func(n int, s string) string { return "\n" + indent(n, s) },
		"quote":   func(v interface{}) string { return fmt.Sprintf("%q", fmt.Sprint(v)) },
		"include": func(name string, data interface{}) (string, error) {
			var b bytes.Buffer
			err := root.ExecuteTemplate(&b, name, data)
			return b.String(), err
		},
	}
	root.Funcs(funcs)
	files, _ := filepath.Glob(filepath.Join(os.Args[1], "templates", "*"))
	sort.Strings(files)
	var docs []string
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if _, err := root.New(filepath.Base(f)).Parse(string(text)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if strings.HasPrefix(filepath.Base(f), "_") {
			continue
		}
		docs = append(docs, filepath.Base(f))
	}
	data := map[string]interface{}{"Values": values}
	for _, name := range docs {
		var b bytes.Buffer
		if err := root.ExecuteTemplate(&b, name, data); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if strings.TrimSpace(b.String()) == "" {
			continue
		}
		fmt.Printf("---\n# Source: %s\n%s\n", name, strings.TrimRight(b.String(), "\n"))
	}
}
