//! The text of a PDF file, page by page, for the model to read.

use lopdf::Document;

/// The PDF's text, its pages separated by a blank line; why not when the file is not a PDF the
/// parser can read (damaged, encrypted with a password).
pub(super) fn pdf_text(bytes: &[u8]) -> Result<String, String> {
    let document = Document::load_mem(bytes).map_err(|error| error.to_string())?;
    let pages: Vec<String> = document
        .get_pages()
        .keys()
        .map(|&page| document.extract_text(&[page]).unwrap_or_default())
        .map(|text| text.trim().to_string())
        .collect();
    Ok(pages.join("\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An invoice made with pdf-lib (tests/support/invoices.mjs): Helvetica, compressed content.
    const INVOICE: &[u8] = include_bytes!("fixtures/invoice.pdf");

    #[test]
    fn reads_the_text_of_a_pdf_made_by_a_pdf_library() {
        let text = pdf_text(INVOICE).unwrap();
        for line in [
            "Invoice INV-2041",
            "Item: Espresso machine service Amount: 149.90 EUR",
            "Item: Descaling kit (3 packs) Amount: 38.25 EUR",
            "Item: Delivery and handling Amount: 12.35 EUR",
        ] {
            assert!(text.contains(line), "{line:?} not in {text:?}");
        }
    }

    #[test]
    fn a_file_that_is_no_pdf_is_said_so() {
        assert!(pdf_text(b"name,amount\n").is_err());
    }
}
