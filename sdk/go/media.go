package engram

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// UploadMedia stores an image or audio clip from its bytes. The SDK encodes them (base64), and fills
// req.ContentType from the bytes' magic number (else req.Filename's extension) and req.Modality from
// the content type when they are empty. With req.Caption or req.Transcript the text is the caller's;
// without, the service derives it through its provider (422 when it has none).
func (o *Owner) UploadMedia(ctx context.Context, data []byte, req UploadMediaRequest, opts ...CallOption) (*Media, error) {
	if req.ContentType == "" {
		req.ContentType = sniffContentType(data, req.Filename)
		if req.ContentType == "" {
			return nil, fmt.Errorf("engram: uploadMedia: cannot tell the content type of %q: set ContentType", req.Filename)
		}
	}
	if req.Modality == "" {
		req.Modality = MediaModality(strings.SplitN(req.ContentType, "/", 2)[0])
	}
	req.DataBase64 = base64.StdEncoding.EncodeToString(data)
	return do[Media](ctx, o.c, &request{op: opUploadMedia, query: o.withReaders(opts), body: jsonBody(req), callOptions: opts})
}

// UploadMediaFile stores the image or audio file at path (its base name is the default Filename).
func (o *Owner) UploadMediaFile(ctx context.Context, path string, req UploadMediaRequest, opts ...CallOption) (*Media, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("engram: uploadMedia: %w", err)
	}
	if req.Filename == "" {
		req.Filename = filepath.Base(path)
	}
	return o.UploadMedia(ctx, data, req, opts...)
}

// Download writes a record's original bytes to w and returns their content type and length.
func (o *Owner) Download(ctx context.Context, docID string, w io.Writer) (contentType string, n int64, err error) {
	resp, err := o.c.send(ctx, &request{op: opDownloadDocument, pathArgs: []string{docID}, query: o.query()}, true)
	if err != nil {
		return "", 0, err
	}
	defer resp.Body.Close()
	n, err = io.Copy(w, resp.Body)
	if err != nil {
		return "", n, fmt.Errorf("engram: downloadDocument: %w", err)
	}
	return resp.Header.Get("Content-Type"), n, nil
}

// magicNumbers are the signatures of the media types the service accepts (DECISIONS.md, Media).
var magicNumbers = []struct {
	offset int
	magic  string
	typ    string
}{
	{0, "\xff\xd8\xff", "image/jpeg"},
	{0, "\x89PNG\r\n\x1a\n", "image/png"},
	{0, "GIF87a", "image/gif"},
	{0, "GIF89a", "image/gif"},
	{8, "WEBP", "image/webp"},
	{8, "WAVE", "audio/wav"},
	{0, "fLaC", "audio/flac"},
	{0, "OggS", "audio/ogg"},
	{0, "ID3", "audio/mpeg"},
	{4, "ftyp", "audio/mp4"},
	{0, "\x1a\x45\xdf\xa3", "audio/webm"},
}

// extensionTypes is the fallback when the bytes do not say.
var extensionTypes = map[string]string{
	".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".png": "image/png", ".gif": "image/gif", ".webp": "image/webp",
	".mp3": "audio/mpeg", ".m4a": "audio/mp4", ".mp4": "audio/mp4", ".wav": "audio/wav", ".webm": "audio/webm",
	".ogg": "audio/ogg", ".oga": "audio/ogg", ".opus": "audio/ogg", ".flac": "audio/flac",
}

func sniffContentType(data []byte, filename string) string {
	for _, m := range magicNumbers {
		if len(data) >= m.offset+len(m.magic) && bytes.Equal(data[m.offset:m.offset+len(m.magic)], []byte(m.magic)) {
			return m.typ
		}
	}
	// An MPEG audio frame without an ID3 tag starts with 11 set bits.
	if len(data) >= 2 && data[0] == 0xff && data[1]&0xe0 == 0xe0 {
		return "audio/mpeg"
	}
	return extensionTypes[strings.ToLower(filepath.Ext(filename))]
}
