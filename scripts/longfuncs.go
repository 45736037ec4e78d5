//go:build ignore

// longfuncs lists the functions of internal/ (tests left out) longer than a limit, longest first:
// go run scripts/longfuncs.go [-max 120] [dir].
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	limit := flag.Int("max", 120, "report functions longer than this many lines")
	flag.Parse()
	root := "internal"
	if flag.NArg() > 0 {
		root = flag.Arg(0)
	}
	type fn struct {
		where string
		lines int
	}
	var long []fn
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			var body *ast.BlockStmt
			name := ""
			switch x := n.(type) {
			case *ast.FuncDecl:
				body, name = x.Body, x.Name.Name
				if x.Recv != nil && len(x.Recv.List) > 0 {
					name = fmt.Sprintf("(%s).%s", types(x.Recv.List[0].Type), name)
				}
			case *ast.FuncLit:
				body, name = x.Body, "func literal"
			}
			if body == nil {
				return true
			}
			start, end := fset.Position(n.Pos()), fset.Position(body.End())
			if l := end.Line - start.Line + 1; l > *limit {
				long = append(long, fn{fmt.Sprintf("%s:%d %s", path, start.Line, name), l})
			}
			return true
		})
		return nil
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	sort.Slice(long, func(i, j int) bool { return long[i].lines > long[j].lines })
	for _, f := range long {
		fmt.Printf("%4d  %s\n", f.lines, f.where)
	}
}

func types(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return "*" + types(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return types(x.X)
	}
	return "?"
}
