# source: https://github.com/tensorflow/tensorflow/issues/43681
# framework: tf
# shape: function
# expect: error TypeError
# hazard: 23 JIT205 `setter` is bound in the branch of an `if` on a tensor while the else branch keeps the `None` from before it
import tensorflow as tf


def setter_for(example, name):
    def set_company():
        example["company"] = name

    return set_company


@tf.function
def known_companies_only(example, prefixes=("Google", "Apple", "LinkedIn", "Facebook")):
    current = example["company"]
    example["company"] = "Other"
    setter = None
    for prefix in prefixes:
        if tf.strings.regex_full_match(current, f"^{prefix}.*"):
            setter = setter_for(example, prefix)
    if setter:
        setter()
    tf.print(example)
    return example


known_companies_only({"company": tf.constant("Google Inc")})
