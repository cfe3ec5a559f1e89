//! Splitting a `-c` command into words, as a POSIX shell splits a simple
//! command: blanks separate words; single quotes keep everything up to the
//! next single quote; double quotes keep everything but `\"`, `\\`, `\$` and
//! `` \` ``, whose backslash goes; a backslash outside quotes keeps the next
//! character. Nothing is expanded (no variables, globs or redirections), and no
//! shell runs. dtrace(1) on Solaris splits on white space only; quoting is our
//! extension, so `-c "prog 'two words'"` passes one argument.

/// The words of `command`, or a message naming what is unterminated.
pub(crate) fn split_command(command: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    // A word has begun (possibly empty, as with `''`).
    let mut started = false;
    let mut chars = command.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            '\'' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => word.push(ch),
                        None => return Err("unterminated single quote".to_string()),
                    }
                }
            }
            '"' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(ch @ ('"' | '\\' | '$' | '`')) => word.push(ch),
                            Some('\n') => {}
                            Some(ch) => {
                                word.push('\\');
                                word.push(ch);
                            }
                            None => return Err("unterminated double quote".to_string()),
                        },
                        Some(ch) => word.push(ch),
                        None => return Err("unterminated double quote".to_string()),
                    }
                }
            }
            '\\' => {
                started = true;
                match chars.next() {
                    Some('\n') => {}
                    Some(ch) => word.push(ch),
                    None => word.push('\\'),
                }
            }
            ch => {
                started = true;
                word.push(ch);
            }
        }
    }
    if started {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::split_command;

    fn split(s: &str) -> Vec<String> {
        split_command(s).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn blanks_separate_words() {
        assert_eq!(split("  ls   -l\t/tmp \n"), ["ls", "-l", "/tmp"]);
        assert!(split("   ").is_empty());
    }

    #[test]
    fn quotes_keep_blanks_and_join_with_neighbours() {
        assert_eq!(split("echo 'a  b' \"c d\""), ["echo", "a  b", "c d"]);
        assert_eq!(split("x'y z'\"w\"v"), ["xy zwv"]);
        assert_eq!(split("a '' \"\" b"), ["a", "", "", "b"]);
        assert_eq!(split(r#"say "it's" 'a "q"'"#), ["say", "it's", "a \"q\""]);
    }

    #[test]
    fn backslashes() {
        assert_eq!(split(r"a\ b c\\d"), ["a b", r"c\d"]);
        assert_eq!(split(r#""\"\\\$\`\n""#), [r#""\$`\n"#]);
        assert_eq!(split(r"'\n'"), [r"\n"]);
        assert_eq!(split("a\\\nb"), ["ab"]);
    }

    #[test]
    fn nothing_is_expanded() {
        assert_eq!(
            split("echo $HOME * ~ ; |"),
            ["echo", "$HOME", "*", "~", ";", "|"]
        );
    }

    #[test]
    fn unterminated_quotes_are_errors() {
        assert_eq!(
            split_command("echo 'abc").unwrap_err(),
            "unterminated single quote"
        );
        assert_eq!(
            split_command("echo \"abc\\\"").unwrap_err(),
            "unterminated double quote"
        );
    }
}
