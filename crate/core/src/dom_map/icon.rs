//! A short name for an icon-only control, from the naming material the sensor gathers, one piece
//! a line marked with its source: words written for people (`t:` an SVG title, a descendant's
//! aria-label, title or alt) first, then icon names (`n:` data-icon, data-testid:
//! `DeleteOutlineIcon` -> "delete outline"), names from icon sets in class names and ids (`c:`
//! `fa fa-reply` -> "reply"; a plain class only when it is a common icon's name, as `star`),
//! then file names (`f:` `trash.png` -> "trash"). Other class names are never read: generated
//! ones (`css-1x2y3z`, `xpir`) and utility ones (`lazy`, `thumbnail`) name nothing.

use crate::text::name_words;

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

/// Class-name prefixes of icon sets: what follows is the icon's name (`fa-reply`, `bi-trash`).
const ICON_SET_PREFIXES: &[&str] = &[
    "fa-",
    "bi-",
    "glyphicon-",
    "icon-",
    "icons-",
    "mdi-",
    "ion-",
    "ti-",
    "la-",
    "ri-",
    "bx-",
    "bxs-",
    "bxl-",
    "octicon-",
    "lucide-",
    "feather-",
    "fi-",
    "uil-",
    "gg-",
    "ph-",
    "icofont-",
    "tabler-",
    "iconoir-",
];

/// Common icons' and widget parts' names: a class name that is one of these (or has them as
/// parts: `nav-close`, `ui-slider-handle`) names its icon even outside an icon set.
const ICON_WORDS: &[&str] = &[
    "star",
    "heart",
    "close",
    "search",
    "menu",
    "reply",
    "retweet",
    "share",
    "trash",
    "delete",
    "edit",
    "plus",
    "minus",
    "home",
    "user",
    "account",
    "profile",
    "cart",
    "basket",
    "bell",
    "notification",
    "settings",
    "gear",
    "cog",
    "play",
    "pause",
    "stop",
    "download",
    "upload",
    "print",
    "info",
    "help",
    "question",
    "check",
    "cross",
    "arrow",
    "next",
    "prev",
    "previous",
    "back",
    "forward",
    "expand",
    "collapse",
    "filter",
    "sort",
    "refresh",
    "like",
    "dislike",
    "bookmark",
    "comment",
    "comments",
    "mail",
    "email",
    "envelope",
    "phone",
    "calendar",
    "lock",
    "unlock",
    "logout",
    "login",
    "logo",
    "facebook",
    "twitter",
    "linkedin",
    "instagram",
    "youtube",
    "pinterest",
    "reddit",
    "whatsapp",
    "telegram",
    "tiktok",
    "github",
    "rss",
    "feed",
    "hamburger",
    "more",
    "ellipsis",
    "kebab",
    "chevron",
    "caret",
    "zoom",
    "camera",
    "video",
    "audio",
    "mute",
    "volume",
    "fullscreen",
    "copy",
    "send",
    "save",
    "pin",
    "flag",
    "location",
    "globe",
    "language",
    "moon",
    "sun",
    "tag",
    "grid",
    "list",
    "thumbs",
    "thumb",
    "add",
    "remove",
    "cancel",
    "clear",
    "undo",
    "redo",
    "attach",
    "attachment",
    "microphone",
    "mic",
    // Parts of widgets (jQuery UI's `ui-slider-handle`).
    "slider",
    "handle",
    "knob",
    "grip",
    "toggle",
    "switch",
    "dropdown",
    "spinner",
    "stepper",
    "resize",
    "resizer",
    "drag",
    "rating",
    "checkbox",
    "radio",
    "tab",
    "accordion",
    "datepicker",
    "picker",
    "scrollbar",
];

/// Words written for people are cut at this many characters.
const MAX_TEXT_CHARS: usize = 40;

/// The hint, or `None` when the material says nothing usable.
pub fn icon_name(material: &str) -> Option<String> {
    let parts: Vec<(&str, &str)> = material
        .lines()
        .map(|line| line.split_once(':').filter(|(k, _)| k.len() == 1).unwrap_or(("c", line)))
        .collect();
    let of = |kind: &'static str| parts.iter().filter(move |(k, _)| *k == kind).map(|(_, value)| *value);
    if let Some(text) = of("t").map(str::trim).find(|text| !text.is_empty()) {
        return Some(crate::text::truncate_words(&text.to_lowercase(), MAX_TEXT_CHARS));
    }
    let named = words(of("n").flat_map(str::split_whitespace).flat_map(name_words));
    let classes = || of("c").flat_map(str::split_whitespace);
    named
        .or_else(|| words(classes().filter_map(icon_set_name).flat_map(name_words)))
        .or_else(|| words(classes().flat_map(|class| class.split(['-', '_'])).filter(|w| is_icon_word(w))))
        .or_else(|| words(of("f").flat_map(name_words)))
}

/// Up to [`MAX_WORDS`] meaningful words, each once.
fn words<'a>(candidates: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut kept: Vec<String> = Vec::new();
    for word in candidates {
        let word = word.to_lowercase();
        if is_meaningful(&word) && !kept.contains(&word) {
            kept.push(word);
            if kept.len() == MAX_WORDS {
                break;
            }
        }
    }
    (!kept.is_empty()).then(|| kept.join(" "))
}

/// The icon's name in an icon set's class: `fa-reply` -> `reply`, `DeleteOutlineIcon` ->
/// `DeleteOutline`, `search-icon` -> `search`.
fn icon_set_name(class: &str) -> Option<&str> {
    let lower = class.to_ascii_lowercase();
    if let Some(prefix) = ICON_SET_PREFIXES.iter().find(|prefix| lower.starts_with(*prefix)) {
        return Some(&class[prefix.len()..]);
    }
    for suffix in ["-icon", "_icon"] {
        if lower.ends_with(suffix) {
            return Some(&class[..class.len() - suffix.len()]);
        }
    }
    class.strip_suffix("Icon").filter(|name| name.starts_with(char::is_uppercase))
}

fn is_icon_word(word: &str) -> bool {
    ICON_WORDS.contains(&word.to_ascii_lowercase().as_str())
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
    fn reads_icon_names_from_titles_icon_sets_and_files() {
        assert_eq!(icon_name("c:btn fa fa-reply").as_deref(), Some("reply"));
        assert_eq!(
            icon_name("c:MuiSvgIcon-root MuiSvgIcon-fontSizeMedium css-i4bv87\nn:DeleteOutlineIcon").as_deref(),
            Some("delete outline")
        );
        assert_eq!(icon_name("c:star").as_deref(), Some("star"));
        assert_eq!(icon_name("c:icon\nf:#icon-thumbs-up").as_deref(), Some("thumbs"));
        assert_eq!(icon_name("f:trash.png").as_deref(), Some("trash"));
        assert_eq!(icon_name("c:material-icons-outlined retweet-btn").as_deref(), Some("retweet"));
        assert_eq!(icon_name("c:nav-search-icon").as_deref(), Some("nav search"));
        assert_eq!(icon_name("c:ui-slider-handle ui-corner-all ui-state-default").as_deref(), Some("slider handle"));
        // Words written for people come first, whole.
        assert_eq!(icon_name("c:fa fa-times\nt:Close dialog").as_deref(), Some("close dialog"));
    }

    #[test]
    fn hashed_utility_or_generic_class_names_never_become_a_hint() {
        assert_eq!(icon_name("c:css-1x2y3z sc-bdfBwQ jsx-123"), None);
        assert_eq!(icon_name("c:icon btn btn-primary"), None);
        assert_eq!(icon_name("c:thumbnail xpir lazy"), None);
        assert_eq!(icon_name("c:trsdu mah maw fybm knvsu erjjihtj"), None);
        assert_eq!(icon_name("c:relative full aligncenter hide"), None);
        assert_eq!(icon_name(""), None);
    }
}
