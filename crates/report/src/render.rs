//! SVG to PNG: resvg with an embedded DejaVu Sans, so no system font or fontconfig is needed
//! (the same rendering as the sweeps' figures).

use std::path::Path;

use crate::Error;

/// The font family the figures name.
pub const FONT: &str = "DejaVu Sans";

/// The embedded DejaVu Sans, parsed once per process.
fn fonts() -> std::sync::Arc<resvg::usvg::fontdb::Database> {
    static FONTS: std::sync::OnceLock<std::sync::Arc<resvg::usvg::fontdb::Database>> =
        std::sync::OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut db = resvg::usvg::fontdb::Database::new();
            db.load_font_data(dejavu::sans::regular().to_vec());
            std::sync::Arc::new(db)
        })
        .clone()
}

/// Rasterises `svg` on white and encodes it as an 8-bit RGBA PNG.
pub fn png_bytes(svg: &str) -> Result<Vec<u8>, Error> {
    let err = |message: String| Error::Draw {
        what: "a PNG".into(),
        message,
    };
    let opt = resvg::usvg::Options {
        font_family: FONT.to_string(),
        fontdb: fonts(),
        ..Default::default()
    };
    let tree = resvg::usvg::Tree::from_str(svg, &opt).map_err(|e| err(e.to_string()))?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| err("an empty image".into()))?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    // tiny-skia keeps premultiplied colours; PNG stores straight ones.
    let mut rgba = Vec::with_capacity(pixmap.data().len());
    for p in pixmap.pixels() {
        let c = p.demultiply();
        rgba.extend_from_slice(&[c.red(), c.green(), c.blue(), c.alpha()]);
    }
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, pixmap.width(), pixmap.height());
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        let mut writer = encoder.write_header().map_err(|e| err(e.to_string()))?;
        writer
            .write_image_data(&rgba)
            .map_err(|e| err(e.to_string()))?;
        writer.finish().map_err(|e| err(e.to_string()))?;
    }
    Ok(bytes)
}

/// Renders `svg` and writes the PNG to `path` atomically.
pub fn write_png(svg: &str, path: &Path) -> Result<(), Error> {
    runner::files::write_atomic(path, &png_bytes(svg)?)?;
    Ok(())
}
