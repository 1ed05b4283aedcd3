//! The report's PNG files: an SVG rendered by [`figures::png`] (resvg with an embedded DejaVu
//! Sans, the same rendering as the sweeps' figures) and written atomically.

use std::path::Path;

use crate::Error;

pub use figures::FONT;

/// Rasterises `svg` on white and encodes it as an 8-bit RGBA PNG ([`figures::png`]).
pub fn png_bytes(svg: &str) -> Result<Vec<u8>, Error> {
    figures::png(svg).map_err(|e| Error::Draw {
        what: "a PNG".into(),
        message: e.to_string(),
    })
}

/// Renders `svg` and writes the PNG to `path` atomically; writes nothing in a program built
/// without PNG rendering ([`figures::PNG`]: the SVG beside it is the figure).
pub fn write_png(svg: &str, path: &Path) -> Result<(), Error> {
    if figures::PNG {
        runner::files::write_atomic(path, &png_bytes(svg)?)?;
    }
    Ok(())
}
