package files

import (
	"fmt"
	"io"
	"net/http"
	"path"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Use is what an upload is for; each use has its own allowlist of file types.
type Use int

const (
	// Document is a resource file or a deliverable: documents, slides, images, video, archives.
	Document Use = iota + 1
	// Image is a headshot, a logo or a background: raster images only (no SVG, which can carry
	// script).
	Image
)

// fileType is a type Podium accepts, by file name extension: the content type it is stored and
// served with, and what sniffing its first bytes (http.DetectContentType) must give.
type fileType struct {
	contentType string
	sniffed     []string
	image       bool
}

var (
	sniffZip  = []string{"application/zip"}
	sniffText = []string{"text/plain; charset=utf-8"}
)

// fileTypes are the accepted types by lower-case extension.
var fileTypes = map[string]fileType{
	".pdf":  {contentType: "application/pdf", sniffed: []string{"application/pdf"}},
	".png":  {contentType: "image/png", sniffed: []string{"image/png"}, image: true},
	".jpg":  {contentType: "image/jpeg", sniffed: []string{"image/jpeg"}, image: true},
	".jpeg": {contentType: "image/jpeg", sniffed: []string{"image/jpeg"}, image: true},
	".gif":  {contentType: "image/gif", sniffed: []string{"image/gif"}, image: true},
	".webp": {contentType: "image/webp", sniffed: []string{"image/webp"}, image: true},
	".pptx": {contentType: "application/vnd.openxmlformats-officedocument.presentationml.presentation", sniffed: sniffZip},
	".docx": {contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", sniffed: sniffZip},
	".xlsx": {contentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", sniffed: sniffZip},
	".key":  {contentType: "application/vnd.apple.keynote", sniffed: sniffZip},
	".odp":  {contentType: "application/vnd.oasis.opendocument.presentation", sniffed: sniffZip},
	".zip":  {contentType: "application/zip", sniffed: sniffZip},
	".txt":  {contentType: "text/plain; charset=utf-8", sniffed: sniffText},
	".md":   {contentType: "text/markdown; charset=utf-8", sniffed: sniffText},
	".csv":  {contentType: "text/csv; charset=utf-8", sniffed: sniffText},
	".mp4":  {contentType: "video/mp4", sniffed: []string{"video/mp4"}},
	".webm": {contentType: "video/webm", sniffed: []string{"video/webm"}},
	".mp3":  {contentType: "audio/mpeg", sniffed: []string{"audio/mpeg"}},
}

// accepted lists the extensions a use accepts, for messages.
func accepted(use Use) string {
	var exts []string
	for ext, t := range fileTypes {
		if use == Document || t.image {
			exts = append(exts, ext)
		}
	}
	sort.Strings(exts)
	return strings.Join(exts, ", ")
}

// sniffLen is how many leading bytes http.DetectContentType looks at.
const sniffLen = 512

// contentTypeOf checks that the file's name and its first bytes agree on an accepted type of the
// use, and returns the content type it is served with. What the client said the type was is not
// consulted.
func contentTypeOf(use Use, name string, head []byte, allowedExts []string) (string, error) {
	ext := strings.ToLower(path.Ext(name))
	t, ok := fileTypes[ext]
	if !ok || (use == Image && !t.image) {
		return "", invalid("A file of this type cannot be uploaded here; accepted: %s", accepted(use))
	}
	if len(allowedExts) > 0 && !hasSuffix(ext, allowedExts) {
		return "", invalid("This requirement accepts only %s files", strings.Join(allowedExts, ", "))
	}
	got := http.DetectContentType(head)
	for _, want := range t.sniffed {
		if got == want {
			return t.contentType, nil
		}
	}
	return "", invalid("The file's contents are not a %s file", strings.TrimPrefix(ext, "."))
}

func hasSuffix(ext string, allowed []string) bool {
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimSpace(a), ext) {
			return true
		}
	}
	return false
}

// AcceptTypes splits a file requirement's accept_types (".pdf,.key") into extensions.
func AcceptTypes(list *string) []string {
	if list == nil {
		return nil
	}
	var out []string
	for _, part := range strings.Split(*list, ",") {
		part = strings.ToLower(strings.TrimSpace(part))
		if part == "" {
			continue
		}
		if !strings.HasPrefix(part, ".") {
			part = "." + part
		}
		out = append(out, part)
	}
	return out
}

// maxNameBytes bounds a stored file name.
const maxNameBytes = 200

// SanitizeName keeps the last element of a file name a client sent, without directories,
// control characters, quotes or characters Windows refuses, at most maxNameBytes long with its
// extension kept. The name is only ever shown and offered as a download name: storage keys never
// come from it.
func SanitizeName(name string) string {
	name = strings.ToValidUTF8(name, "")
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case r == '\t':
			return ' '
		case unicode.IsControl(r), strings.ContainsRune(`"<>:|?*`, r):
			return -1
		case unicode.IsSpace(r):
			return ' '
		}
		return r
	}, name)
	name = strings.Trim(strings.TrimSpace(name), ".")
	if len(name) > maxNameBytes {
		ext := path.Ext(name)
		if len(ext) > 16 {
			ext = ""
		}
		base := name[:maxNameBytes-len(ext)]
		for !utf8.ValidString(base) {
			base = base[:len(base)-1]
		}
		name = base + ext
	}
	if name == "" {
		return "file"
	}
	return name
}

// readHead reads up to sniffLen bytes and returns them with a reader that gives the whole
// stream again.
func readHead(r io.Reader) ([]byte, io.Reader, error) {
	head := make([]byte, sniffLen)
	n, err := io.ReadFull(r, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, nil, fmt.Errorf("files: read: %w", err)
	}
	head = head[:n]
	if s, ok := r.(io.Seeker); ok {
		if _, err := s.Seek(0, io.SeekStart); err != nil {
			return nil, nil, fmt.Errorf("files: rewind: %w", err)
		}
		return head, r, nil
	}
	return head, io.MultiReader(strings.NewReader(string(head)), r), nil
}
