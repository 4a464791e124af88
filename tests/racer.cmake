# examples/racer played headless under Xvfb against a real raceserver with bots
# (test_racer.sh). Only where racer was built (SDL2 found) and xvfb-run exists; scripts/deps.sh
# installs both, so CI runs it.
if(NOT TARGET racer)
  message(STATUS "test_racer: skipped (racer is not built)")
  return()
endif()
find_program(RS_XVFB_RUN xvfb-run)
if(NOT RS_XVFB_RUN)
  message(STATUS "test_racer: skipped (xvfb-run not found: apt-get install xvfb xauth)")
  return()
endif()
add_executable(racer_shot_check racer_shot_check.c)
target_include_directories(racer_shot_check PRIVATE ${PROJECT_SOURCE_DIR}/examples/racer)
target_compile_options(racer_shot_check PRIVATE ${RS_WARNINGS})
add_test(NAME test_racer
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_racer.sh $<TARGET_FILE:racer>
                 $<TARGET_FILE:raceserver> $<TARGET_FILE:racebot>
                 $<TARGET_FILE:racer_shot_check> ${CMAKE_CURRENT_SOURCE_DIR}/racer_lap.script)
# RESOURCE_LOCK gui_race: never beside test_web (tests/CMakeLists.txt says why).
set_tests_properties(test_racer PROPERTIES ENVIRONMENT "${RS_TEST_ENV}" TIMEOUT 150
                     RESOURCE_LOCK gui_race)
