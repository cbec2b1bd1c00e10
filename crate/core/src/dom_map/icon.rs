//! A short name for an icon-only control, read from the naming material the sensor gathers (class
//! names, ids, icon names, an SVG title, a picture's file name): `fa fa-reply` -> "reply",
//! `data-testid=DeleteOutlineIcon` -> "delete outline".

/// Words that name no action: icon-set prefixes, layout and state classes, file types.
const GENERIC: &[&str] = &[
    "icon",
    "icons",
    "btn",
    "button",
    "buttons",
    "svg",
    "glyph",
    "glyphicon",
    "glyphicons",
    "material",
    "symbols",
    "symbol",
    "outlined",
    "rounded",
    "round",
    "sharp",
    "filled",
    "fill",
    "solid",
    "regular",
    "light",
    "thin",
    "duotone",
    "mdi",
    "ion",
    "ionicon",
    "ionicons",
    "feather",
    "lucide",
    "heroicon",
    "bootstrap",
    "mui",
    "root",
    "font",
    "size",
    "medium",
    "small",
    "large",
    "inline",
    "active",
    "hover",
    "focus",
    "clickable",
    "pointer",
    "wrapper",
    "container",
    "inner",
    "outer",
    "item",
    "items",
    "control",
    "action",
    "actions",
    "link",
    "img",
    "image",
    "png",
    "gif",
    "jpg",
    "jpeg",
    "webp",
    "default",
    "primary",
    "secondary",
    "tertiary",
    "base",
    "text",
    "label",
    "toolbar",
    "js",
    "css",
    "styled",
    "component",
    "element",
    "elem",
    "widget",
    "flex",
    "block",
    "hidden",
    "visible",
    "disabled",
    "selected",
    "open",
    "closed",
    "btn-icon",
    "only",
    "sprite",
    "sprites",
    "color",
    "white",
    "black",
    "dark",
    "the",
    "and",
];
/// Words kept at most: a hint, not a description.
const MAX_WORDS: usize = 3;

/// The hint's words, or `None` when the material says nothing usable.
pub fn icon_name(material: &str) -> Option<String> {
    let mut words: Vec<String> = Vec::new();
    for word in material.split(|c: char| !c.is_alphanumeric()).flat_map(crate::text::split_camel_case) {
        let word = word.to_lowercase();
        if is_meaningful(&word) && !words.contains(&word) {
            words.push(word);
            if words.len() == MAX_WORDS {
                break;
            }
        }
    }
    (!words.is_empty()).then(|| words.join(" "))
}

/// A word of 3 to 20 letters with a vowel, no digits (hashed class names have them or lack
/// vowels), and not generic.
fn is_meaningful(word: &str) -> bool {
    (3..=20).contains(&word.chars().count())
        && word.chars().all(char::is_alphabetic)
        && word.chars().any(|c| "aeiouy".contains(c))
        && !GENERIC.contains(&word)
}

#[cfg(test)]
mod tests {
    use super::icon_name;

    #[test]
    fn reads_icon_names_from_classes_ids_and_files() {
        assert_eq!(icon_name("btn fa fa-reply").as_deref(), Some("reply"));
        assert_eq!(
            icon_name("MuiSvgIcon-root MuiSvgIcon-fontSizeMedium css-i4bv87 DeleteOutlineIcon").as_deref(),
            Some("delete outline")
        );
        assert_eq!(icon_name("star").as_deref(), Some("star"));
        assert_eq!(icon_name("icon #icon-thumbs-up").as_deref(), Some("thumbs"));
        assert_eq!(icon_name("trash.png").as_deref(), Some("trash"));
        assert_eq!(icon_name("material-icons-outlined retweet-btn").as_deref(), Some("retweet"));
    }

    #[test]
    fn hashed_or_generic_material_gives_no_hint() {
        assert_eq!(icon_name("css-1x2y3z sc-bdfBwQ jsx-123"), None);
        assert_eq!(icon_name("icon btn btn-primary"), None);
        assert_eq!(icon_name(""), None);
    }
}
