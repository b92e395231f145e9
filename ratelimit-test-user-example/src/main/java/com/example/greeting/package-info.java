/**
 * An application as a user writes it: one limited controller.
 */
@NullMarked
package com.example.greeting;

import org.jspecify.annotations.NullMarked;
