// Command modzip writes a Go module as a module proxy serves it (scripts/release): DIR/PATH/@v/{list, VERSION.info,
// VERSION.mod, VERSION.zip}, so `GOPROXY=file://DIR go get PATH@VERSION` installs exactly what a release tags.
//
//	go run ./modzip MODULE_DIR VERSION OUT_DIR
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func run(dir, version, out string) error {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	path := modfile.ModulePath(gomod)
	escaped, err := module.EscapePath(path)
	if err != nil {
		return err
	}
	target := filepath.Join(out, escaped, "@v")
	if err := os.MkdirAll(target, 0o755); err != nil {
		return err
	}
	archive, err := os.Create(filepath.Join(target, version+".zip"))
	if err != nil {
		return err
	}
	defer archive.Close()
	if err := zip.CreateFromDir(archive, module.Version{Path: path, Version: version}, dir); err != nil {
		return err
	}
	info, _ := json.Marshal(map[string]string{"Version": version, "Time": time.Now().UTC().Format(time.RFC3339)})
	files := map[string][]byte{version + ".mod": gomod, version + ".info": info, "list": []byte(version + "\n")}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(target, name), content, 0o644); err != nil {
			return err
		}
	}
	fmt.Println(filepath.Join(target, version+".zip"))
	return nil
}

func main() {
	if len(os.Args) != 4 || !strings.HasPrefix(os.Args[2], "v") {
		fmt.Fprintln(os.Stderr, "usage: modzip MODULE_DIR vVERSION OUT_DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "modzip:", err)
		os.Exit(1)
	}
}
