package toolkit

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/draw"
	_ "image/gif"
	"image/jpeg"
	"image/png"
	"math"

	"golang.org/x/image/bmp"
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
	Data  []byte
	Mime  string
	Hints []string
}

// ProcessImage is pi's processImage: an image within pi's limits (2000×2000, 4.5 MB of
// base64) goes through unchanged; a larger png, jpeg or gif is scaled to fit and re-encoded
// as pi does (PNG, then JPEG at quality 80, 85, 70, 55, 40, then 3/4 of the size each round,
// the first encoding under the limit), with pi's dimension note. pigo scales by area
// averaging where pi uses Lanczos3, so the pixels differ slightly. A bmp is converted to PNG
// first, as pi does, with pi's note; one that cannot be decoded, and a large webp (pigo cannot
// decode webp), are omitted with pi's notes.
func ProcessImage(buf []byte, mime string) (processed, error) {
	var hints []string
	if mime == "image/bmp" {
		img, err := bmp.Decode(bytes.NewReader(buf))
		var pb bytes.Buffer
		if err != nil || png.Encode(&pb, img) != nil {
			return processed{}, errors.New("[Image omitted: could not be converted to a supported inline image format.]")
		}
		buf, mime = pb.Bytes(), "image/png"
		hints = append(hints, "[Image converted from image/bmp to image/png.]")
	}
	p, err := processSupported(buf, mime)
	p.Hints = append(hints, p.Hints...)
	return p, err
}

func processSupported(buf []byte, mime string) (processed, error) {
	w, h, ok := imageSize(buf, mime)
	b64 := (len(buf) + 2) / 3 * 4
	if ok && w <= imageMaxSide && h <= imageMaxSide && float64(b64) < imageMaxBytes {
		return processed{Data: buf, Mime: mime}, nil
	}
	tooBig := errors.New("[Image omitted: could not be resized below the inline image size limit.]")
	if !ok || mime == "image/webp" {
		return processed{}, tooBig
	}
	img, _, err := image.Decode(bytes.NewReader(buf))
	if err != nil {
		return processed{}, tooBig
	}
	tw, th := w, h
	if tw > imageMaxSide {
		th = int(math.Round(float64(th) * imageMaxSide / float64(tw)))
		tw = imageMaxSide
	}
	if th > imageMaxSide {
		tw = int(math.Round(float64(tw) * imageMaxSide / float64(th)))
		th = imageMaxSide
	}
	for {
		scaled := scale(img, max(tw, 1), max(th, 1))
		var cands []struct {
			data []byte
			mime string
		}
		var pb bytes.Buffer
		if png.Encode(&pb, scaled) == nil {
			cands = append(cands, struct {
				data []byte
				mime string
			}{pb.Bytes(), "image/png"})
		}
		for _, q := range []int{80, 85, 70, 55, 40} {
			var jb bytes.Buffer
			if jpeg.Encode(&jb, scaled, &jpeg.Options{Quality: q}) == nil {
				cands = append(cands, struct {
					data []byte
					mime string
				}{jb.Bytes(), "image/jpeg"})
			}
		}
		for _, c := range cands {
			if float64((len(c.data)+2)/3*4) < imageMaxBytes {
				note := fmt.Sprintf("[Image: original %dx%d, displayed at %dx%d. Multiply coordinates by %.2f to map to original image.]",
					w, h, tw, th, float64(w)/float64(tw))
				return processed{Data: c.data, Mime: c.mime, Hints: []string{note}}, nil
			}
		}
		if tw == 1 && th == 1 {
			return processed{}, tooBig
		}
		nw, nh := tw, th
		if nw != 1 {
			nw = max(1, int(math.Floor(float64(tw)*0.75)))
		}
		if nh != 1 {
			nh = max(1, int(math.Floor(float64(th)*0.75)))
		}
		if nw == tw && nh == th {
			return processed{}, tooBig
		}
		tw, th = nw, nh
	}
}

// scale shrinks img to w×h by averaging the source pixels each target pixel covers.
func scale(img image.Image, w, h int) *image.RGBA {
	b := img.Bounds()
	src := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(src, src.Bounds(), img, b.Min, draw.Src)
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	sw, sh := b.Dx(), b.Dy()
	for y := 0; y < h; y++ {
		y0, y1 := y*sh/h, max((y+1)*sh/h, y*sh/h+1)
		for x := 0; x < w; x++ {
			x0, x1 := x*sw/w, max((x+1)*sw/w, x*sw/w+1)
			var r, g, bl, a, n uint32
			for sy := y0; sy < y1 && sy < sh; sy++ {
				row := src.Pix[sy*src.Stride:]
				for sx := x0; sx < x1 && sx < sw; sx++ {
					p := row[sx*4 : sx*4+4]
					r, g, bl, a = r+uint32(p[0]), g+uint32(p[1]), bl+uint32(p[2]), a+uint32(p[3])
					n++
				}
			}
			if n == 0 {
				continue
			}
			o := dst.Pix[y*dst.Stride+x*4:]
			o[0], o[1], o[2], o[3] = uint8(r/n), uint8(g/n), uint8(bl/n), uint8(a/n)
		}
	}
	return dst
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
