//go:build !linux

package history

// walkDir walks the folder abs (root made absolute) into w: walkNamed, the portable walk.
func walkDir(root, abs string, w *walked, files []string, errs []error) ([]string, []error) {
	return walkNamed(root, abs, w, files, errs)
}
