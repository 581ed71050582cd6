package tools

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // DecodeConfig for gif
	_ "image/jpeg"
	_ "image/png"
)

// DetectImage is pi's detectSupportedImageMimeType on the first bytes of a file: jpeg (not
// JPEG-LS), png (not animated), gif, webp and bmp; "" for anything else.
func DetectImage(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte{0xff, 0xd8, 0xff}):
		if len(b) > 3 && b[3] == 0xf7 {
			return ""
		}
		return "image/jpeg"
	case bytes.HasPrefix(b, []byte{0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a}):
		if isPNG(b) && !isAnimatedPNG(b) {
			return "image/png"
		}
		return ""
	case bytes.HasPrefix(b, []byte("GIF")):
		return "image/gif"
	case len(b) >= 12 && bytes.HasPrefix(b, []byte("RIFF")) && string(b[8:12]) == "WEBP":
		return "image/webp"
	case bytes.HasPrefix(b, []byte("BM")) && isBMP(b):
		return "image/bmp"
	}
	return ""
}

func isPNG(b []byte) bool {
	return len(b) >= 16 && binary.BigEndian.Uint32(b[8:]) == 13 && string(b[12:16]) == "IHDR"
}

func isAnimatedPNG(b []byte) bool {
	off := 8
	for off+8 <= len(b) {
		n := int(binary.BigEndian.Uint32(b[off:]))
		switch string(b[off+4 : off+8]) {
		case "acTL":
			return true
		case "IDAT":
			return false
		}
		next := off + 8 + n + 4
		if next <= off || next > len(b) {
			return false
		}
		off = next
	}
	return false
}

func isBMP(b []byte) bool {
	if len(b) < 26 {
		return false
	}
	size := binary.LittleEndian.Uint32(b[2:])
	pix := binary.LittleEndian.Uint32(b[10:])
	dib := binary.LittleEndian.Uint32(b[14:])
	if size != 0 && size < 26 || pix < 14+dib || size != 0 && pix >= size {
		return false
	}
	var planes, bpp uint16
	switch {
	case dib == 12:
		planes, bpp = binary.LittleEndian.Uint16(b[22:]), binary.LittleEndian.Uint16(b[24:])
	case dib >= 40 && dib <= 124:
		if len(b) < 30 {
			return false
		}
		planes, bpp = binary.LittleEndian.Uint16(b[26:]), binary.LittleEndian.Uint16(b[28:])
	default:
		return false
	}
	switch bpp {
	case 1, 4, 8, 16, 24, 32:
		return planes == 1
	}
	return false
}

// pi's inline image limits (utils/image-resize-core.js).
const (
	imageMaxSide  = 2000
	imageMaxBytes = 4.5 * 1024 * 1024
)

type processed struct {
	data  []byte
	mime  string
	hints []string
}

// processImage is pi's processImage for what pigo can do without an image codec library:
// png, jpeg, gif and webp within pi's limits go through unchanged (as pi sends them); an
// image that pi would convert (bmp) or resize is omitted with pi's note.
func processImage(buf []byte, mime string) (processed, error) {
	if mime == "image/bmp" {
		return processed{}, errors.New("[Image omitted: could not be converted to a supported inline image format.]")
	}
	w, h, ok := imageSize(buf, mime)
	b64 := (len(buf) + 2) / 3 * 4
	if ok && w <= imageMaxSide && h <= imageMaxSide && float64(b64) < imageMaxBytes {
		return processed{data: buf, mime: mime}, nil
	}
	if !ok {
		return processed{}, fmt.Errorf("[Image omitted: could not be resized below the inline image size limit.]")
	}
	return processed{}, errors.New("[Image omitted: could not be resized below the inline image size limit.]")
}

func imageSize(buf []byte, mime string) (int, int, bool) {
	if mime == "image/webp" {
		return webpSize(buf)
	}
	c, _, err := image.DecodeConfig(bytes.NewReader(buf))
	if err != nil {
		return 0, 0, false
	}
	return c.Width, c.Height, true
}

// webpSize reads the canvas size of a VP8, VP8L or VP8X WebP.
func webpSize(b []byte) (int, int, bool) {
	if len(b) < 30 {
		return 0, 0, false
	}
	switch string(b[12:16]) {
	case "VP8 ":
		if b[23] != 0x9d || b[24] != 0x01 || b[25] != 0x2a {
			return 0, 0, false
		}
		return int(binary.LittleEndian.Uint16(b[26:]) & 0x3fff), int(binary.LittleEndian.Uint16(b[28:]) & 0x3fff), true
	case "VP8L":
		if b[20] != 0x2f {
			return 0, 0, false
		}
		v := binary.LittleEndian.Uint32(b[21:])
		return int(v&0x3fff) + 1, int(v>>14&0x3fff) + 1, true
	case "VP8X":
		w := int(b[24]) | int(b[25])<<8 | int(b[26])<<16
		h := int(b[27]) | int(b[28])<<8 | int(b[29])<<16
		return w + 1, h + 1, true
	}
	return 0, 0, false
}
